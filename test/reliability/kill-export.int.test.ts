/**
 * SIGKILL `fleetsync export` at several points — before the database opens, the moment the temp
 * file appears (mid-COPY for CSV and Parquet, mid-write for Arrow), halfway through the temp
 * file's life, and the moment anything appears under the final name — and the
 * report's final path either does not exist or holds the complete file, byte for byte the one an
 * uninterrupted export writes. Never a half-written file under the final name.
 *
 * A point is timed on what the export does, not on its size: the test watches the directory
 * (inotify) and stops the child (SIGSTOP) the moment the watched change is there, looks, then
 * SIGKILLs it — so "killed while the temp file was being written" is what was seen at the kill,
 * and a small table (100,000 rows) is enough to land there.
 *
 * The file and its manifest: a file under its final name always has a manifest whose SHA-256 is
 * the file's; overwriting an export and killing it (or failing it between the two renames) leaves
 * either a matching pair, old or new, or the new manifest beside the old file, which the hash
 * exposes (verifyExport) — never a new file described by the old manifest.
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { exportReport, manifestPath, verifyExport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { getReport } from '../../src/reports/registry.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';
import { spawnCli, type SpawnedCli } from '../helpers/cli-process.ts';

const ROWS = 100_000;
/** Seconds between trip starts: the rows span 2026-03-01 to ~04-20 whatever ROWS is. */
const STEP_S = (11 * 400_000) / ROWS;
let dir: string;
let dbPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-kill-export-'));
  dbPath = join(dir, 'big.duckdb');
  const db = await openDatabase(dbPath);
  const con = await db.connect();
  // Enough rows that the temp file lives a while (the kill is timed on it, not on the size).
  await con.run(`
    INSERT INTO trips (account, trip_id, vehicle_id, registration, start_time, end_time,
                       trip_distance_m, start_odometer_m, end_odometer_m, driver_id,
                       start_location, end_location)
    SELECT 'acme', 'trip-' || i, 1000 + i % 50, 'REG-' || (i % 50),
           TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_seconds(i * ${STEP_S}),
           TIMESTAMPTZ '2026-03-01 00:00:00+00' + to_seconds(i * ${STEP_S} + 600),
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

const hasTemp = (sub: string) => readdirSync(sub).some((f) => f.includes('.tmp.'));

/**
 * Stops `cli` (SIGSTOP) at the first moment `seen()` holds, checked at every change in `sub`
 * (inotify) from before the child starts; resolves false if the child ended first.
 */
function stopWhen(cli: SpawnedCli, sub: string, seen: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const check = () => {
      if (done || !seen()) return;
      done = true;
      cli.child.kill('SIGSTOP');
      watcher.close();
      resolve(true);
    };
    const watcher = watch(sub, check);
    void cli.exited.then(() => {
      if (done) return;
      done = true;
      watcher.close();
      resolve(false);
    });
    check();
  });
}

/** Spawns the export of `args`, stopped as soon as `seen()` holds in `sub` (see stopWhen). */
function spawnWatched(args: string[], sub: string, seen: () => boolean) {
  const cli = spawnCli(args, env());
  return { cli, stopped: stopWhen(cli, sub, seen) };
}

/** `fleetsync export trips` from 1 March to `to`, run in this process (where the process is not the point). */
const exportHere = (to: string, out: string) =>
  runMain(env(), 'export', 'trips', '--from', '2026-03-01', '--to', to, '--out', out);

/** Starts an export in `sub` and SIGKILLs it per `when` (ms after the start, or a change seen); resolves once it is gone. */
async function exportAndKill(
  format: string,
  sub: string,
  when: number | 'temp' | { tempPlusMs: number } | 'final',
) {
  const out = join(sub, `trips.${format}`);
  const seen = when === 'temp' || typeof when === 'object' ? () => hasTemp(sub) : () => existsSync(out);
  const { cli, stopped } = spawnWatched(
    args(format, out),
    sub,
    typeof when === 'number' ? () => false : seen,
  );
  if (typeof when === 'number') await sleep(when);
  else if (typeof when === 'object') {
    // Halfway through the temp file's life: stopped when it appears, then let run a while.
    if (await stopped) {
      cli.child.kill('SIGCONT');
      await sleep(when.tempPlusMs);
      cli.child.kill('SIGSTOP');
    }
  } else await stopped;
  // What is on disk at the kill (the child is stopped, or gone).
  const sawTemp = hasTemp(sub);
  const finalAtKill = existsSync(out);
  cli.child.kill('SIGKILL');
  const r = await cli.exited;
  return { out, killedMidWrite: r.signal === 'SIGKILL' && sawTemp && !finalAtKill };
}

/** The reference: an uninterrupted CLI export, and how long its temp file lived. */
async function referenceExport(format: string, sub: string) {
  const out = join(sub, `trips.${format}`);
  const t0 = Date.now();
  let tempAt = 0;
  let finalAt = 0;
  const watcher = watch(sub, () => {
    if (!tempAt && hasTemp(sub)) tempAt = Date.now();
    if (!finalAt && existsSync(out)) finalAt = Date.now();
  });
  const done = await spawnCli(args(format, out), env()).exited;
  watcher.close();
  expect(done.code, done.stderr).toBe(0);
  expect(done.stdout).toMatch(/wrote \d+ rows? of trips/);
  return {
    complete: readFileSync(out),
    took: Date.now() - t0,
    tempLife: tempAt && finalAt ? finalAt - tempAt : 0,
  };
}

describe('an export killed with SIGKILL', () => {
  for (const format of ['csv', 'parquet', 'arrow']) {
    it(`${format}: the final file is absent or complete, never half-written`, async () => {
      const { complete, took, tempLife } = await referenceExport(
        format,
        mkdtempSync(join(dir, `ref-${format}-`)),
      );

      let killedMidWrite = 0;
      // Kill points: before the database opens, as soon as the temp file exists, halfway through
      // its life, and (for Arrow, whose temp file lives only during one writeFile) spread over the run.
      const points =
        format === 'arrow'
          ? [300, 'temp' as const, 'final' as const, ...[0.7, 0.9].map((f) => Math.round(took * f))]
          : [300, 'temp' as const, { tempPlusMs: Math.round(tempLife / 2) }, 'final' as const];
      for (const when of points) {
        const label = typeof when === 'object' ? `temp+${when.tempPlusMs}ms` : String(when);
        const sub = mkdtempSync(join(dir, `${format}-${label}-`));
        const killed = await exportAndKill(format, sub, when);
        if (killed.killedMidWrite) killedMidWrite++;
        const { out } = killed;
        if (existsSync(out)) {
          expect(readFileSync(out).equals(complete), `${label}: a partial file under the final name`).toBe(
            true,
          );
          // ... and never without the manifest that describes it.
          expect(await verifyExport(out), label).toMatchObject({ ok: true });
        }
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
    // The command in this process: what is shown is what the export does, not the process.
    const r = await exportHere('2026-03-02', out);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(sub).sort()).toEqual(
      [names.fresh, names.otherReport, names.userFile, 'trips.csv', 'trips.csv.manifest.json'].sort(),
    );
  }, 60_000);
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const manifestOf = (out: string) =>
  JSON.parse(readFileSync(manifestPath(out), 'utf8')) as { sha256: string; bytes: number; to: string };

describe('the file and its manifest describe the same export', () => {
  it('a manifest carries the SHA-256 and size of its file (sha256sum -c agrees)', async () => {
    const sub = mkdtempSync(join(dir, 'digest-'));
    const out = join(sub, 'trips.csv');
    const r = await exportHere('2026-03-02', out);
    expect(r.code, r.stderr).toBe(0);
    const data = readFileSync(out);
    expect(manifestOf(out)).toMatchObject({ sha256: sha256(data), bytes: data.length });
    expect(await verifyExport(out)).toMatchObject({ ok: true });
    // The reader's check in docs/reports.md, with coreutils.
    const check = `${manifestOf(out).sha256}  ${out}\n`;
    expect(execFileSync('sha256sum', ['-c', '-'], { input: check }).toString()).toContain(': OK');
    writeFileSync(out, Buffer.concat([data, Buffer.from('tampered\n')]));
    expect(await verifyExport(out)).toMatchObject({ ok: false });
  }, 60_000);

  it('overwriting an export killed at any moment: a whole file, and the hash tells whether the manifest is its own', async () => {
    // Two complete exports: A (the one on disk) and B (the one being written over it), by the
    // command in this process (the CLI's file is byte-equal to it: "B" below is compared with it).
    const refDir = mkdtempSync(join(dir, 'pair-ref-'));
    const refA = join(refDir, 'a.csv');
    const refB = join(refDir, 'b.csv');
    for (const [ref, to] of [
      [refA, '2026-03-20'],
      [refB, '2026-05-31'],
    ] as const) {
      const r = await exportHere(to, ref);
      expect(r.code, r.stderr).toBe(0);
    }
    const [a, b] = [readFileSync(refA), readFileSync(refB)];
    const argsB = ['export', 'trips', '--from', '2026-03-01', '--to', '2026-05-31', '--format', 'csv'];
    const seen = new Set<string>();
    for (const when of ['temp', 'manifest', 'final'] as const) {
      const sub = mkdtempSync(join(dir, `pair-${when}-`));
      const out = join(sub, 'trips.csv');
      writeFileSync(out, a);
      writeFileSync(manifestPath(out), JSON.stringify({ ...manifestOf(refA), file: 'trips.csv' }));
      expect(await verifyExport(out)).toMatchObject({ ok: true });
      const inodeA = statSync(out).ino;
      const isB = () => existsSync(manifestPath(out)) && manifestOf(out).to === '2026-05-31';
      const { cli, stopped } = spawnWatched(
        [...argsB, '--out', out],
        sub,
        when === 'manifest'
          ? isB
          : // The rename of the new file: the final name's inode changes.
            when === 'final'
            ? () => statSync(out).ino !== inodeA
            : () => hasTemp(sub),
      );
      await stopped;
      cli.child.kill('SIGKILL');
      await cli.exited;
      const data = readFileSync(out);
      const which = data.equals(a) ? 'A' : data.equals(b) ? 'B' : 'partial';
      expect(which, `${when}: the file under the final name`).not.toBe('partial');
      const verdict = await verifyExport(out);
      const described = manifestOf(out).to === '2026-05-31' ? 'B' : 'A';
      seen.add(`${which}/${described}`);
      // Either the pair matches, or it is the new manifest beside the old file and the hash says so.
      if (described === which) expect(verdict, when).toMatchObject({ ok: true });
      else {
        expect([which, described], `${when}: a new file described by the old manifest`).toEqual(['A', 'B']);
        expect(verdict, when).toMatchObject({ ok: false, reason: expect.stringMatching(/interrupted/) });
      }
    }
    // The kills landed both before the manifest moved (A/A) and after (B/B or A/B).
    expect(seen.has('A/A')).toBe(true);
    expect([...seen].some((s) => s.endsWith('/B'))).toBe(true);
  }, 240_000);

  it('a failure between the steps: at the manifest, the old pair stays; at the file, the hash exposes the mix', async () => {
    const sub = mkdtempSync(join(dir, 'inject-'));
    const out = join(sub, 'trips.csv');
    const db = await openDatabase(dbPath);
    const con = await db.connect();
    try {
      const def = getReport('trips')!;
      const scope = { account: 'acme', zone: 'UTC', nowMs: Date.parse('2026-11-01T00:00:00Z') };
      const params = (to: string) => parseReportParams({ from: '2026-03-01', to }, def, scope);
      await exportReport(con, def, scope, params('2026-03-02'), 'csv', out);
      const a = readFileSync(out);
      const manifestA = readFileSync(manifestPath(out));
      const failOn = (target: string) => async (from: string, to: string) => {
        if (to === target) throw Object.assign(new Error('injected: killed here'), { code: 'EIO' });
        await rename(from, to);
      };

      // Fails as the manifest is moved into place: nothing of the new export is visible.
      await expect(
        exportReport(con, def, scope, params('2026-03-03'), 'csv', out, {
          rename: failOn(manifestPath(out)),
        }),
      ).rejects.toThrow(/injected/);
      expect(readFileSync(out).equals(a)).toBe(true);
      expect(readFileSync(manifestPath(out)).equals(manifestA)).toBe(true);
      expect(await verifyExport(out)).toMatchObject({ ok: true });

      // Fails as the file is moved into place: the new manifest no longer matches the old file.
      await expect(
        exportReport(con, def, scope, params('2026-03-03'), 'csv', out, { rename: failOn(out) }),
      ).rejects.toThrow(/injected/);
      expect(readFileSync(out).equals(a)).toBe(true);
      expect(manifestOf(out).to).toBe('2026-03-03');
      expect(await verifyExport(out)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/interrupted/),
      });
      // No temp file is left by a failure; the next export restores a matching pair.
      expect(readdirSync(sub).sort()).toEqual(['trips.csv', 'trips.csv.manifest.json']);
      await exportReport(con, def, scope, params('2026-03-03'), 'csv', out);
      expect(await verifyExport(out)).toMatchObject({ ok: true });
    } finally {
      con.closeSync();
      db.close();
    }
  }, 60_000);
});
