/**
 * Issue 29: the trips export streams the rows as stored when they are stored in start order (no
 * sort), through scalar lookups instead of joins, and writes the same bytes whichever path it
 * takes. Oracle: the rows of a join-and-sort query over the same synced database, with local
 * times from an ICU conversion of each instant (iso_local), not from the quarter-hour list.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReport, inStoredOrder } from '../../src/reports/export.ts';
import { parseReportParams, type ReportParams } from '../../src/reports/params.ts';
import {
  bindings,
  prepareBound,
  prepareLookups,
  requireReport,
  type ReportScope,
} from '../../src/reports/run.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { loadSql } from '../../src/store/queries.ts';
import { parseCsv } from '../helpers/report-fixture.ts';
import { startSharedSync, type SharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT } from '../helpers/synced.ts';

let s: SharedSync;
let con: DuckDBConnection;
let scope: ReportScope;
const def = requireReport('trips');

beforeAll(async () => {
  s = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  con = await s.h.db.connect();
  await prepareModelConnection(con);
  scope = { account: ACCOUNT, zone: s.h.fleet.timezone, nowMs: s.h.now() };
}, 600_000);
afterAll(async () => {
  con?.closeSync();
  await s?.h.close();
});

const params = (raw: Record<string, string> = {}) =>
  parseReportParams({ from: s.h.firstDay, to: s.h.lastDay, ...raw }, def, scope);

/** Rewrites the account's trips in the given order (the rows themselves unchanged). */
async function storeTrips(order: string) {
  await con.run(`CREATE OR REPLACE TEMP TABLE trips_copy AS SELECT * FROM trips ORDER BY ${order}`);
  await con.run('DELETE FROM trips');
  await con.run('INSERT INTO trips SELECT * FROM trips_copy');
}

async function storedOrder(p: ReportParams) {
  const values = bindings(scope, p);
  const sql = loadSql('reports/trips');
  await prepareLookups(con, sql, values);
  return (await inStoredOrder(con, sql, values)).streamed;
}

async function exportCsv(name: string, p: ReportParams) {
  const out = join(s.h.dir, name);
  await exportReport(con, def, scope, p, 'csv', out, { manifest: false });
  return readFileSync(out, 'utf8');
}

/** The oracle: joins to the vehicles and drivers, ICU local times, sorted by (start, trip id). */
async function reference(p: ReportParams) {
  const r = await con.runAndReadAll(
    `SELECT t.trip_id, coalesce(v.registration, t.registration) AS registration, v.department,
            iso_local(t.start_time, $zone) AS start_time, iso_local(t.end_time, $zone) AS end_time,
            t.driver_id, n.driver_name
     FROM trips AS t
     LEFT JOIN vehicle_departments($account) AS v ON v.vehicle_id = t.vehicle_id
     LEFT JOIN driver_names($account) AS n ON n.driver_id = t.driver_id
     WHERE t.account = $account
       AND t.start_time >= local_range_start($zone, $from_day) AND t.start_time < local_range_end($zone, $to_day)
       AND ($vehicle::BIGINT IS NULL OR t.vehicle_id = $vehicle::BIGINT)
     ORDER BY t.start_time, t.trip_id`,
    { account: ACCOUNT, zone: scope.zone, from_day: p.fromDay, to_day: p.toDay, vehicle: p.vehicle },
  );
  return r
    .getRowObjectsJS()
    .map((o) => [
      o.trip_id,
      o.registration,
      o.department ?? '',
      o.start_time,
      o.end_time,
      o.driver_id ?? '',
      o.driver_name ?? '',
    ]);
}

function rowsOf(csv: string) {
  const [header, ...rows] = parseCsv(csv.replace(/^\uFEFF/, ''));
  const at = (n: string) => header!.indexOf(n);
  const cols = [
    'trip_id',
    'registration',
    'department',
    'start_time',
    'end_time',
    'driver_id',
    'driver_name',
  ];
  return rows.filter((r) => r.length > 1).map((r) => cols.map((c) => r[at(c)]));
}

describe('trips export in stored order (issue 29)', () => {
  it('a sync stores the trips in start order (the writer sorts each commit), so the export streams them', async () => {
    const n = await con.runAndReadAll(`SELECT count(*) FROM trips WHERE account = $1`, [ACCOUNT]);
    expect(Number(n.getRowsJS()[0]![0])).toBeGreaterThan(100);
    expect(await storedOrder(params())).toBe(true);
  });

  it('streams trips stored in start order and sorts any other order, the same bytes both ways', async () => {
    const p = params();
    await storeTrips('hash(trip_id)');
    expect(await storedOrder(p)).toBe(false);
    const sorted = await exportCsv('sorted.csv', p);

    await storeTrips('account, start_time, trip_id');
    expect(await storedOrder(p)).toBe(true);
    const streamed = await exportCsv('streamed.csv', p);

    expect(streamed).toBe(sorted);
    const ref = await reference(p);
    expect(ref.length).toBeGreaterThan(100);
    expect(ref.some((r) => r[2] !== '')).toBe(true); // departments known
    expect(ref.some((r) => r[6] !== '')).toBe(true); // driver names known
    expect(rowsOf(streamed)).toEqual(ref);
  });

  it('a vehicle of the streamed export: its trips only, in order, as the oracle lists them', async () => {
    await storeTrips('account, start_time, trip_id');
    const vehicle = String(s.h.fleet.vehicles[1]!.vehicle_id);
    const p = params({ vehicle });
    expect(await storedOrder(p)).toBe(true);
    const ref = await reference(p);
    expect(ref.length).toBeGreaterThan(10);
    expect(rowsOf(await exportCsv('vehicle.csv', p))).toEqual(ref);
  });

  it('Parquet: the same rows in the same order from either storage order', async () => {
    const p = params();
    const read = async (name: string) => {
      const out = join(s.h.dir, name);
      await exportReport(con, def, scope, p, 'parquet', out, { manifest: false });
      return (await con.runAndReadAll(`SELECT * FROM read_parquet('${out}')`)).getRowsJS();
    };
    await storeTrips('vehicle_id DESC, start_time DESC');
    const a = await read('a.parquet');
    await storeTrips('account, start_time, trip_id');
    const b = await read('b.parquet');
    expect(b).toEqual(a);
    expect(b.map((r) => r[0])).toEqual((await reference(p)).map((r) => r[0]));
  });

  it('the report refuses lookups made for another account instead of naming its vehicles', async () => {
    const sql = loadSql('reports/trips');
    const other = bindings({ ...scope, account: 'someone-else' }, params());
    await prepareLookups(con, sql, other);
    const ps = await prepareBound(con, sql, bindings(scope, params()));
    await expect(ps.runAndReadAll()).rejects.toThrow(/lookups were not made for this account/);
  });
});
