/**
 * The lake: an account's file published to Hive-partitioned Parquet reads back, through the
 * in-memory views of `serve --lake`, with every report equal to the same report on the file; an
 * independent reader (hyparquet) reads the files; a reader never sees a partial file while a
 * publish rewrites the partitions; a lake that cannot be written is a clear error.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lakeAccounts, openLake } from '../../src/lake/read.ts';
import { publishAccount } from '../../src/lake/publish.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let lake: string;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 4, days: 40 }, instantWaits: true });
  await h.sync();
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

  it('serves every report from the lake exactly as from the file', async () => {
    const ldb = await openLake(lake);
    const [file, lakeCon] = [await h.db.connect(), await ldb.connect()];
    try {
      for (const name of REPORT_NAMES) {
        const [fromFile, fromLake] = [await reportOn(file, name), await reportOn(lakeCon, name)];
        expect({ name, rows: fromLake }).toEqual({ name, rows: fromFile });
      }
      expect((await reportOn(lakeCon, 'mileage')).length).toBeGreaterThan(0);
    } finally {
      file.closeSync();
      lakeCon.closeSync();
      ldb.close();
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
      for (let i = 0; i < 5; i++) await publishAccount(con, ACCOUNT, lake);
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
