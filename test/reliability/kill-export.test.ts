/**
 * SIGKILL `fleetsync export` at several points — before the database opens, the moment the temp
 * file appears (mid-COPY for CSV and Parquet, mid-write for Arrow), a little later, and the moment
 * anything appears under the final name — and the
 * report's final path either does not exist or holds the complete file, byte for byte the one an
 * uninterrupted export writes. Never a half-written file under the final name.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { runCli, spawnCli } from './cli-helpers.ts';

const ROWS = 400_000;
let dir: string;
let dbPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-kill-export-'));
  dbPath = join(dir, 'big.duckdb');
  const db = await openDatabase(dbPath);
  const con = await db.connect();
  // Big enough that writing the trips report takes a while: the kill lands mid-COPY.
  await con.run(`
    INSERT INTO trips
    SELECT 'acme', 'trip-' || i, 1000 + i % 50, 'REG-' || (i % 50),
           TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_seconds(i * 11),
           TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_seconds(i * 11 + 600),
           1000 + i % 997, i * 10.0, i * 10.0 + 1000, '=cmd|driver-' || (i % 9), 'A street', 'B road'
    FROM range(${ROWS}) AS t(i)`);
  con.closeSync();
  db.close();
}, 60_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ FLEETSYNC_DB: dbPath, FLEETSYNC_ACCOUNT: 'acme', FLEET_TIMEZONE: 'UTC' });
// Arrow is built in memory by apache-arrow (slow for big tables) and written with one writeFile:
// a shorter range keeps that test fast; CSV and Parquet stream from DuckDB's COPY.
const args = (format: string, out: string) => [
  'export',
  'trips',
  '--from',
  '2026-03-01',
  '--to',
  format === 'arrow' ? '2026-03-03' : '2026-05-31',
  '--format',
  format,
  '--out',
  out,
];

/** Starts an export in `sub` and SIGKILLs it per `when`; resolves once it is gone. */
async function exportAndKill(format: string, sub: string, when: number | 'temp' | 'temp+150ms' | 'final') {
  const out = join(sub, `trips.${format}`);
  const cli = spawnCli(args(format, out), env());
  let gone = false;
  void cli.exited.then(() => (gone = true));
  if (typeof when === 'number') await sleep(when);
  else if (when === 'final') {
    // The moment anything appears under the final name: it must already be whole.
    while (!gone && !existsSync(out)) await sleep(1);
  } else {
    // Poll for the temp file the export writes beside its target.
    while (!gone && !readdirSync(sub).some((f) => f.includes('.tmp.'))) await sleep(2);
    if (when === 'temp+150ms') await sleep(150);
  }
  const sawTemp = readdirSync(sub).some((f) => f.includes('.tmp.'));
  cli.child.kill('SIGKILL');
  const r = await cli.exited;
  return { out, killed: r.signal === 'SIGKILL', sawTemp };
}

describe('an export killed with SIGKILL', () => {
  for (const format of ['csv', 'parquet', 'arrow']) {
    it(`${format}: the final file is absent or complete, never half-written`, async () => {
      const refDir = mkdtempSync(join(dir, `ref-${format}-`));
      const ref = join(refDir, `trips.${format}`);
      const t0 = Date.now();
      const done = await runCli(args(format, ref), env());
      const took = Date.now() - t0;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toMatch(/wrote \d+ rows of trips/);
      const complete = readFileSync(ref);

      let killedMidWrite = 0;
      // Kill points: before the database opens, as soon as the temp file exists, a little later,
      // and (for Arrow, whose temp file lives only during one writeFile) spread over the run.
      const points =
        format === 'arrow'
          ? [300, 'temp' as const, 'final' as const, ...[0.7, 0.9].map((f) => Math.round(took * f))]
          : [300, 'temp' as const, 'temp+150ms' as const, 'final' as const];
      for (const when of points) {
        const sub = mkdtempSync(join(dir, `${format}-${when}-`));
        const { out, killed, sawTemp } = await exportAndKill(format, sub, when);
        if (killed && sawTemp && !existsSync(out)) killedMidWrite++;
        if (existsSync(out))
          expect(readFileSync(out).equals(complete), `${when}: a partial file under the final name`).toBe(
            true,
          );
        // Only the hidden temp name may be left behind by a kill, never a visible partial file.
        for (const f of readdirSync(sub))
          expect(f === `trips.${format}` || f.startsWith('.trips.') || f.endsWith('.manifest.json'), f).toBe(
            true,
          );
      }
      // The test only proves something if at least one kill landed while the file was being written.
      if (format !== 'arrow') expect(killedMidWrite).toBeGreaterThan(0);
    }, 90_000);
  }

  it('the next export of the same file sweeps the temp files a killed one left (15 min untouched)', async () => {
    const sub = mkdtempSync(join(dir, 'sweep-'));
    const uuid = (n: number) => `0000000${n}-1111-2222-3333-444444444444`;
    const names = {
      stale: `.trips.csv.${uuid(1)}.tmp.csv`,
      staleRaw: `.trips.csv.${uuid(2)}.tmp.raw`,
      staleManifest: `.trips.csv.manifest.json.${uuid(3)}.tmp.json`,
      fresh: `.trips.csv.${uuid(4)}.tmp.csv`, // another process may be writing it
      otherReport: `.tolls.csv.${uuid(5)}.tmp.csv`,
      userFile: '.trips.csv.notes',
    };
    const old = (Date.now() - 20 * 60_000) / 1000;
    for (const [k, n] of Object.entries(names)) {
      writeFileSync(join(sub, n), 'partial');
      if (k !== 'fresh') utimesSync(join(sub, n), old, old);
    }
    const out = join(sub, 'trips.csv');
    const r = await runCli(
      ['export', 'trips', '--from', '2026-03-01', '--to', '2026-03-02', '--out', out],
      env(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(sub).sort()).toEqual(
      [names.fresh, names.otherReport, names.userFile, 'trips.csv', 'trips.csv.manifest.json'].sort(),
    );
  }, 60_000);
});
