/**
 * logbook_years when a vehicle's trips overlap an odometer window left out (issue 29): the year's
 * totals come from the trips' day facts less the left-out trips, and when the last trip of a day
 * with a usable reading is left out, the year's last counted trip is read again from that day's
 * trips. Hand-worked fixture, ZA (SAST +02 all year, tax year from 1 March), one vehicle on
 * 10 April 2026 (local; A = 2026-04-09T22:00Z is its midnight):
 *  - odometer window A 00:00–12:00, counted: 100 → 110 km
 *  - odometer window A 12:00–13:00, flagged (a reset): 110 → 1 km, left out
 *  - t1 (driver d1) 08:00–09:00, Business, 100 → 110 km: counted, 10 km
 *  - t3 (driver d2) 12:30–22:00, Private, 1 → 6 km: overlaps the flagged window, left out; the
 *    day's last trip with a usable reading
 *  - t2 (driver d1) 14:00–15:00, Business, 2 → 4 km: counted, 2 km; the year's last counted trip,
 *    ending after the last odometer window, so the year closes at its reading (4 km, 3 km beyond
 *    the window's 1 km) and its distance by odometer is 10 + 3 = 13 km.
 * A second vehicle, 8, the same day: a counted window 00:00–12:00 (50 → 60 km), a reset 12:00–13:00
 * (60 → 1 km) and a tracker change 13:00–14:00 (1 → 2 km), both left out; t4 08:00–09:00, Business,
 * 50 → 60 km, counted; t5 12:30–13:30, Private, 0.5 → 1.5 km, over both left-out windows: one
 * left-out trip, not two (the day is not all left out, so t4's 10 km stay).
 * Every expected figure is worked out by hand from these rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type JsonRow, type ReportScope } from '../../src/reports/run.ts';
import { rebuildFacts } from '../../src/store/facts.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

const ACCOUNT = 'leftout';
const ZONE = 'Africa/Johannesburg';
const A = Date.parse('2026-04-09T22:00:00Z');
const H = 3_600_000;
const DAY = 24 * H;

const trip = (
  id: string,
  driver: string,
  s: number,
  e: number,
  a: number,
  z: number,
  type: string,
  vehicle = 9,
): Row => ({
  account: ACCOUNT,
  trip_id: id,
  vehicle_id: vehicle,
  registration: `LO ${vehicle}`,
  driver_id: driver,
  start_time: s,
  end_time: e,
  trip_distance_m: 99_000, // never what the logbook counts
  start_odometer_m: a,
  end_odometer_m: z,
  trip_type: type,
  trip_type_known: true,
  is_private: type === 'Private',
});
const odo = (s: number, e: number, a: number, z: number, reset: boolean, vehicle = 9, swap = false): Row => ({
  ...{ account: ACCOUNT, vehicle_id: vehicle, terminal_has_changed: swap, odometer_reset: reset },
  ...{ window_start: s, window_end: e, start_odometer_m: a, end_odometer_m: z, distance_m: z - a },
});

let dir: string;
let db: Database;
let con: DuckDBConnection;
const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: A + 3 * DAY, taxYearStart: '03-01' };

async function rows(name: string): Promise<JsonRow[]> {
  const def = requireReport(name);
  const params = parseReportParams({ from: '2026-04-10', to: '2026-04-10' }, def, scope);
  return (await runReport(con, def, scope, params)).rows;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-logbook-left-out-'));
  db = await openDatabase(join(dir, 'fleet.duckdb'));
  con = await db.connect();
  await appendRows(
    con,
    'vehicles',
    [9, 8].map((v) => ({
      account: ACCOUNT,
      vehicle_id: v,
      registration: `LO ${v}`,
      description: 'Sales',
      synced_at: A,
      fuel_canbus_consumed: true,
      fuel_canbus_level: false,
      fuel_analog_level: false,
      electric_battery: false,
      electric_charging: false,
    })),
  );
  await appendRows(con, 'trips', [
    trip('t1', 'd1', A + 8 * H, A + 9 * H, 100_000, 110_000, 'Business'),
    trip('t3', 'd2', A + 12.5 * H, A + 22 * H, 1_000, 6_000, 'Private'),
    trip('t2', 'd1', A + 14 * H, A + 15 * H, 2_000, 4_000, 'Business'),
    trip('t4', 'd1', A + 8 * H, A + 9 * H, 50_000, 60_000, 'Business', 8),
    trip('t5', 'd2', A + 12.5 * H, A + 13.5 * H, 500, 1_500, 'Private', 8),
  ]);
  await appendRows(con, 'odometer_windows', [
    odo(A, A + 12 * H, 100_000, 110_000, false),
    odo(A + 12 * H, A + 13 * H, 110_000, 1_000, true),
    odo(A, A + 12 * H, 50_000, 60_000, false, 8),
    odo(A + 12 * H, A + 13 * H, 60_000, 1_000, true, 8),
    odo(A + 13 * H, A + 14 * H, 1_000, 2_000, false, 8, true),
  ]);
  const led = (stream: string, scope: string, s: number, e: number, status: string): Row =>
    ledgerRow(ACCOUNT, stream, scope, s, e, A + 3 * DAY, {
      status,
      reason: status === 'flagged' ? 'odometer_reset' : null,
    });
  await appendRows(con, 'ledger', [
    led('trips', '*', A, A + DAY, 'done'),
    led('odometer', '9', A, A + 12 * H, 'done'),
    led('odometer', '9', A + 12 * H, A + 13 * H, 'flagged'),
    led('odometer', '9', A + 13 * H, A + DAY, 'done'),
    led('odometer', '8', A, A + 12 * H, 'done'),
    led('odometer', '8', A + 12 * H, A + 14 * H, 'flagged'),
    led('odometer', '8', A + 14 * H, A + DAY, 'done'),
  ]);
  // rows written by hand here: the facts the sync keeps at commit, computed first
  await rebuildFacts(con, ACCOUNT, ZONE);
});
afterAll(() => {
  con?.closeSync();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('logbook_years with a trip over an odometer window left out', () => {
  it('the trip list marks the trip over the reset left out, and counts the other two', async () => {
    const trips = Object.fromEntries((await rows('logbook')).map((r) => [String(r.trip_id), r]));
    expect(trips.t1).toMatchObject({ odometer_status: 'ok', counted_km: 10 });
    expect(trips.t2).toMatchObject({ odometer_status: 'ok', counted_km: 2 });
    expect(trips.t3).toMatchObject({ odometer_status: 'left_out', km: 5, counted_km: null });
  });

  it("takes the left-out trip off the year's totals and closes the year at the last counted trip", async () => {
    const years = await rows('logbook_years');
    expect(years.map((y) => y.registration)).toEqual(['LO 8', 'LO 9']);
    expect(years[1]).toMatchObject({
      registration: 'LO 9',
      tax_year: '2026/27',
      trips: 3,
      business_km: 12,
      private_km: 0,
      unclassified_km: 0,
      unclassified_trips: 0,
      trips_not_counted: 1,
      excluded_periods: 1,
      odometer_km: 13,
      business_share: 0.9231,
      opening_odometer_km: 100,
      opening_odometer_day: '2026-04-10',
      opening_odometer_trip: null,
      // t2, not t3: the day's last trip with a reading is left out, so the day is read again
      closing_odometer_km: 4,
      closing_odometer_day: '2026-04-10',
      closing_odometer_trip: 't2',
    });
  });

  it('counts a trip over two left-out windows once', async () => {
    const y8 = (await rows('logbook_years')).find((y) => y.registration === 'LO 8');
    expect(y8).toMatchObject({
      trips: 2,
      business_km: 10,
      private_km: 0,
      unclassified_km: 0,
      trips_not_counted: 1,
      excluded_periods: 2,
      odometer_km: 10,
      business_share: 1,
      opening_odometer_km: 50,
      // the year's last counted trip (t4) ends before the last window: the window's reading closes it
      closing_odometer_km: 2,
      closing_odometer_day: '2026-04-10',
      closing_odometer_trip: null,
    });
  });
});
