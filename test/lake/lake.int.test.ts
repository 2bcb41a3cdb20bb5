/**
 * The lake: an account's file published to Hive-partitioned Parquet reads back, through the
 * in-memory views of `serve --lake`, with every report equal to the same report on the file; an
 * independent reader (hyparquet) reads the files; a reader never sees a partial file while a
 * publish rewrites the partitions; a lake that cannot be written is a clear error. A publish writes
 * only the partitions whose rows changed (a second job's new day, an old month's change or delete),
 * every one when asked or without its manifest, and a publish killed part-way is completed by the
 * next.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeAccounts, openLake } from '../../src/lake/read.ts';
import { lakeTables, publishAccount } from '../../src/lake/publish.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { localDate } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let lake: string;

const DAY = 86_400_000;
const SRC = join(import.meta.dirname, '..', '..', 'src');

beforeAll(async () => {
  // Three months (1 Feb – 20 Apr); the last day is left for the second job (below).
  h = await startHarness({ fleet: { vehicles: 2, days: 80 }, instantWaits: true });
  await h.sync({ toDay: localDate(h.fleet.endMs - 1 - DAY, h.fleet.timezone) });
  lake = mkdtempSync(join(tmpdir(), 'fleetsync-lake-'));
  const con = await h.db.connect();
  await publishAccount(con, ACCOUNT, lake).finally(() => con.closeSync());
}, 120_000);
afterAll(async () => {
  await h?.close();
  if (lake) rmSync(lake, { recursive: true, force: true });
});

const fileBuffer = (path: string): ArrayBuffer => new Uint8Array(readFileSync(path)).buffer;

/** A report over the whole history on `con` (one connection per database for every report, as serve keeps them). */
async function reportOn(con: DuckDBConnection, name: string) {
  const scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
  const def = requireReport(name);
  return (
    await runReport(con, def, scope, parseReportParams({ from: h.firstDay, to: h.lastDay }, def, scope))
  ).rows;
}

describe('Parquet lake', () => {
  it('lays the tables out as <table>/account=<a>/month=<YYYY-MM>/data.parquet', () => {
    expect(lakeAccounts(lake)).toEqual([ACCOUNT]);
    const months = readdirSync(join(lake, 'trips', `account=${ACCOUNT}`)).sort();
    expect(months.length).toBeGreaterThan(1);
    for (const m of months) {
      expect(m).toMatch(/^month=\d{4}-\d{2}$/);
      expect(readdirSync(join(lake, 'trips', `account=${ACCOUNT}`, m))).toEqual(['data.parquet']);
    }
  });

  it('an independent reader (hyparquet) reads the trips with the counts of the file', async () => {
    const dir = join(lake, 'trips', `account=${ACCOUNT}`);
    let total = 0;
    for (const m of readdirSync(dir)) {
      const file = fileBuffer(join(dir, m, 'data.parquet'));
      const rows = await parquetReadObjects({ file, columns: ['trip_id', 'start_time'] });
      expect(Number(parquetMetadata(file).num_rows)).toBe(rows.length);
      total += rows.length;
    }
    const con = await h.db.connect();
    const n = (await con.runAndReadAll('SELECT count(*)::INT AS n FROM trips')).getRowObjectsJS()[0]!.n;
    con.closeSync();
    expect(total).toBe(n);
  });

  it('a reader listing and reading partitions during publishes never sees a partial file', async () => {
    const dir = join(lake, 'trips', `account=${ACCOUNT}`);
    const con = await h.db.connect();
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        for (const m of readdirSync(dir)) {
          const p = join(dir, m, 'data.parquet');
          if (!existsSync(p)) continue;
          let file: ArrayBuffer;
          try {
            file = fileBuffer(p);
          } catch {
            continue; // a partition removed between listing and reading: gone, not partial
          }
          const rows = await parquetReadObjects({ file, columns: ['trip_id'] }); // throws on a torn file
          expect(rows.length).toBeGreaterThan(0);
          reads++;
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    try {
      // full: a publish with nothing changed writes nothing (below)
      for (let i = 0; i < 5; i++) await publishAccount(con, ACCOUNT, lake, { full: true });
    } finally {
      stop = true;
      con.closeSync();
    }
    await reader;
    expect(reads).toBeGreaterThan(0);
    for (const m of readdirSync(dir)) expect(readdirSync(join(dir, m))).toEqual(['data.parquet']);
  });

  it('removes a partition the account no longer has', async () => {
    const stale = join(lake, 'trips', `account=${ACCOUNT}`, 'month=1999-01');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(stale, { recursive: true });
    writeFileSync(join(stale, 'data.parquet'), 'old');
    const con = await h.db.connect();
    const r = await publishAccount(con, ACCOUNT, lake).finally(() => con.closeSync());
    expect(r.removed).toBe(1);
    expect(existsSync(stale)).toBe(false);
  });

  it('a lake directory that cannot be written is a clear error, nothing written', async () => {
    // A path under a regular file cannot be a directory, for root too.
    const parent = mkdtempSync(join(tmpdir(), 'fleetsync-ro-'));
    writeFileSync(join(parent, 'file'), '');
    const con = await h.db.connect();
    await expect(publishAccount(con, ACCOUNT, join(parent, 'file', 'lake'))).rejects.toThrow(
      /FLEETSYNC_LAKE_DIR: the lake directory .* is not writable/,
    );
    con.closeSync();
    expect(readdirSync(parent)).toEqual(['file']);
    rmSync(parent, { recursive: true, force: true });
  });
});

/** Every data file of the lake: its inode, mtime and content hash, by path. */
function lakeFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'data.parquet') {
        const p = join(dir, e.name);
        const st = statSync(p);
        const sha = createHash('sha256').update(readFileSync(p)).digest('hex');
        out.set(p.slice(lake.length + 1), `${st.ino}/${st.mtimeMs}/${sha}`);
      }
  };
  walk(lake);
  return out;
}

/** The paths whose file is not the same file (inode, mtime, bytes) in `after`, or is gone or new. */
function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

async function publishNow(opts: Parameters<typeof publishAccount>[3] = {}) {
  const con = await h.db.connect();
  return publishAccount(con, ACCOUNT, lake, opts).finally(() => con.closeSync());
}

/**
 * Every account-keyed table: its rows in the lake equal its rows in the file (and some have rows);
 * with `reports`, every report too.
 */
async function expectLakeEqualsFile(reports = false) {
  const ldb = await openLake(lake);
  const [file, lakeCon] = [await h.db.connect(), await ldb.connect()];
  try {
    let rows = 0;
    for (const t of await lakeTables(file)) {
      const sql = `SELECT * FROM "${t.name}" WHERE account = '${ACCOUNT}' ORDER BY ALL`;
      const fromFile = (await file.runAndReadAll(sql)).getRowObjectsJson();
      const fromLake = (await lakeCon.runAndReadAll(sql)).getRowObjectsJson();
      expect({ table: t.name, rows: fromLake }).toEqual({ table: t.name, rows: fromFile });
      rows += fromFile.length;
    }
    expect(rows).toBeGreaterThan(0);
    for (const name of reports ? REPORT_NAMES : [])
      expect({ name, rows: await reportOn(lakeCon, name) }).toEqual({
        name,
        rows: await reportOn(file, name),
      });
    if (reports) expect((await reportOn(lakeCon, 'mileage')).length).toBeGreaterThan(0);
  } finally {
    file.closeSync();
    lakeCon.closeSync();
    ldb.close();
  }
}

const trips = (month: string) => `trips/account=${ACCOUNT}/month=${month}/data.parquet`;
/** The months of the lake's trips, in order. */
const tripMonths = () =>
  readdirSync(join(lake, 'trips', `account=${ACCOUNT}`))
    .map((d) => d.slice('month='.length))
    .sort();

describe('a publish writes only the partitions whose rows changed', () => {
  it('a second job that adds the last day leaves every untouched month the same file; the lake serves every report exactly as the file', async () => {
    const before = lakeFiles();
    h.advance(DAY);
    const run = await h.sync({ fromDay: h.lastDay, toDay: h.lastDay });
    expect(run.outcome).toBe('ok');
    const r = await publishNow();
    const diff = changed(before, lakeFiles());
    expect(r.full).toBeNull();
    expect(r.files).toBe(diff.length);
    expect(r.kept).toBe(before.size - diff.filter((p) => before.has(p)).length);
    // Every partition of a month before the new day's is the file it was (what changed is of the
    // new day's month or later: the day, the run, the coverage and settings as of now).
    const lastMonth = h.lastDay.slice(0, 7);
    expect(diff.filter((p) => (/month=(\d{4}-\d{2})/.exec(p)?.[1] ?? '9999') < lastMonth)).toEqual([]);
    expect(diff).toContain(trips(lastMonth));
    await expectLakeEqualsFile(true);
    // Nothing changed since: nothing is written.
    expect(await publishNow()).toMatchObject({ files: 0, removed: 0, full: null });
  });

  it('a change or a delete in an old month (late data, a re-zone) republishes that month only', async () => {
    const con = await h.db.connect();
    const [first, second] = tripMonths();
    try {
      await con.run(
        `UPDATE trips SET trip_distance_m = trip_distance_m + 1500 WHERE trip_id = (
           SELECT min(trip_id) FROM trips WHERE strftime(timezone('UTC', start_time), '%Y-%m') = '${first!}')`,
      );
      await con.run(
        `DELETE FROM trips WHERE trip_id = (
           SELECT max(trip_id) FROM trips WHERE strftime(timezone('UTC', start_time), '%Y-%m') = '${second!}')`,
      );
    } finally {
      con.closeSync();
    }
    const before = lakeFiles();
    const r = await publishNow();
    expect(changed(before, lakeFiles())).toEqual([trips(first!), trips(second!)]);
    expect(r).toMatchObject({ files: 2, removed: 0, full: null });
    await expectLakeEqualsFile();
  });

  it('rewrites a missing file, a table published with other columns, and everything when asked or without a manifest', async () => {
    const [first] = tripMonths();
    rmSync(join(lake, trips(first!)));
    expect(await publishNow()).toMatchObject({ files: 1, full: null });
    expect(existsSync(join(lake, trips(first!)))).toBe(true);

    // A lake written by another schema of `odometer_windows`: every month of it is rewritten.
    const mf = join(lake, '_publish', `${ACCOUNT}.json`);
    const m = JSON.parse(readFileSync(mf, 'utf8')) as {
      tables: Record<string, { columns: string; months: object }>;
    };
    const odoMonths = Object.keys(m.tables.odometer_windows!.months).length;
    expect(odoMonths).toBeGreaterThan(1);
    m.tables.odometer_windows!.columns += ', added VARCHAR';
    writeFileSync(mf, JSON.stringify(m));
    let before = lakeFiles();
    expect(await publishNow()).toMatchObject({ files: odoMonths, full: null });
    expect(
      changed(before, lakeFiles()).every((p) => p.startsWith(`odometer_windows/account=${ACCOUNT}/`)),
    ).toBe(true);

    const all = lakeFiles().size;
    before = lakeFiles();
    expect(await publishNow({ full: true })).toMatchObject({ files: all, kept: 0, full: 'asked' });
    expect(changed(before, lakeFiles())).toHaveLength(all);
    rmSync(mf);
    expect(await publishNow()).toMatchObject({ files: all, kept: 0, full: 'no manifest' });
    // A record that is not one (cut short, edited by hand) is as none.
    writeFileSync(mf, JSON.stringify({ version: 1, account: ACCOUNT, tables: null }));
    expect(await publishNow()).toMatchObject({ files: all, kept: 0, full: 'no manifest' });
    await expectLakeEqualsFile();
  });

  it('a publish killed part-way (SIGKILL) leaves every partition whole; the next publish completes it', async () => {
    // Every month of trips changes; a copy of the file is published by a child killed after its
    // second partition is written (under its temporary name, before the rename).
    const con = await h.db.connect();
    try {
      await con.run('UPDATE trips SET trip_distance_m = trip_distance_m + 250');
      await con.run('CHECKPOINT');
    } finally {
      con.closeSync();
    }
    const copy = join(h.dir, 'killed.duckdb');
    copyFileSync(h.dbPath, copy);
    const script = join(h.dir, 'killed-publish.mts');
    writeFileSync(
      script,
      `import { openDatabase } from ${JSON.stringify(join(SRC, 'store', 'db.ts'))};
       import { publishAccount } from ${JSON.stringify(join(SRC, 'lake', 'publish.ts'))};
       const db = await openDatabase(${JSON.stringify(copy)});
       let n = 0;
       await publishAccount(await db.connect(), ${JSON.stringify(ACCOUNT)}, ${JSON.stringify(lake)}, {
         onWritten: (table) => { if (table === 'trips' && ++n === 2) process.kill(process.pid, 'SIGKILL'); },
       });`,
    );
    const before = lakeFiles();
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect({ signal, stderr }).toEqual({ signal: 'SIGKILL', stderr: '' });
    // One trips month renamed into place, the second left under its temporary name, the rest old.
    const killed = changed(before, lakeFiles());
    expect(killed).toHaveLength(1);
    expect(killed[0]).toMatch(/^trips\//);
    const tmps = readdirSync(join(lake, 'trips', `account=${ACCOUNT}`), { recursive: true }).filter((f) =>
      String(f).endsWith('.parquet.tmp'),
    );
    expect(tmps).toHaveLength(1);
    for (const p of lakeFiles().keys()) {
      const file = fileBuffer(join(lake, p));
      expect(Number(parquetMetadata(file).num_rows)).toBeGreaterThan(0); // whole, or this throws
    }
    // The next publish rewrites the months the kill left behind (the renamed one too: the manifest
    // was not written), removes the temporary file, and the lake is the file again.
    const tripMonths = readdirSync(join(lake, 'trips', `account=${ACCOUNT}`)).length;
    expect(await publishNow()).toMatchObject({ files: tripMonths, full: null });
    expect(
      readdirSync(join(lake, 'trips', `account=${ACCOUNT}`), { recursive: true }).filter((f) =>
        String(f).endsWith('.parquet.tmp'),
      ),
    ).toEqual([]);
    await expectLakeEqualsFile();
  }, 60_000);
});
