/**
 * A trip that runs into the first day a sync pulls (honesty seed 225028463): the API answers a
 * window with every trip active in it, whole, so a sync of one day stores the trip that started
 * the evening before and ends after midnight, on a day no window of which was pulled. The logbook
 * lists it (on the day it starts); its totals — the export manifest's, a dashboard page's, the
 * tax year's — are added up from the trips' day facts, which must count it too. Against the
 * simulator: the trips it says were active that day, their readings as the API sends them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimTrip } from '../../src/simulator/model.ts';
import { useRawFacts } from '../../src/store/models.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { addDays, localDate, localDayBounds } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let day: string; // the day synced
let across: SimTrip; // a trip that starts the day before and ends on it
let truth: SimTrip[]; // the trips the simulator has active on the day synced
let con: DuckDBConnection;

beforeAll(async () => {
  // three vehicles: the third drives in the evenings, past local midnight
  h = await startHarness({ fleet: { seed: 7, vehicles: 3, days: 20 }, instantWaits: true });
  const zone = h.fleet.timezone;
  const crossing = h.fleet.truth
    .trips(h.fleet.startMs, h.fleet.endMs)
    .filter(
      (t) =>
        localDate(t.start_ms, zone) < localDate(t.end_ms - 1, zone) &&
        localDate(t.start_ms, zone) > h.firstDay,
    );
  expect(crossing.length, 'the fleet has a trip across local midnight').toBeGreaterThan(0);
  across = crossing[0]!;
  day = localDate(across.end_ms - 1, zone);
  const b = localDayBounds(day, zone);
  truth = h.fleet.truth.trips(b.startMs, b.endMs);
  const s = await h.sync({ fromDay: day, toDay: day, streams: ['trips'] });
  expect(s.outcome).toBe('ok');
  con = await h.db.connect();
}, 120_000);
afterAll(async () => {
  con?.closeSync();
  await h?.close();
});

/** The kilometres of trips by their readings as the API sends them (whole metres), to the metre. */
const readingKm = (ts: readonly SimTrip[]) =>
  ts.reduce((m, t) => m + Math.max(0, Math.round(t.end_odometer_m) - Math.round(t.start_odometer_m)), 0) /
  1000;

describe('a trip that runs into the first day synced', () => {
  it("is listed on the day it starts, and the logbook's totals (JSON, a page, the export manifest) count it", async () => {
    const zone = h.fleet.timezone;
    const raw = { from: addDays(day, -1), to: day };
    const def = requireReport('logbook');
    const scope: ReportScope = { account: ACCOUNT, zone, nowMs: h.now() };
    const params = parseReportParams(raw, def, { zone, nowMs: h.now() });
    const json = await runReport(con, def, scope, params);
    expect(json.rows.map((r) => r.trip_id).sort()).toEqual(truth.map((t) => t.trip_id).sort());
    const before = json.rows.filter((r) => r.local_date === raw.from);
    expect(before.map((r) => r.trip_id)).toContain(across.trip_id);
    // every reading went up and no odometer window is left out (none was pulled): all counted
    const km = readingKm(truth);
    expect(json.totals.km).toBeCloseTo(km, 6);
    expect(json.totals.counted_km).toBeCloseTo(km, 6);
    // a dashboard page (totals from the trips' day facts) and the CSV's manifest say the same
    const page = await runReport(con, def, scope, params, { limit: 2, offset: 0 });
    expect(page.total).toBe(truth.length);
    expect(page.totals.km).toBeCloseTo(km, 6);
    expect(page.totals.counted_km).toBeCloseTo(km, 6);
    const out = join(h.dir, 'logbook.csv');
    await exportReport(con, def, scope, params, 'csv', out);
    const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8')) as {
      totals: Record<string, number | null>;
    };
    expect(manifest.totals.km).toBeCloseTo(km, 6);
    expect(manifest.totals.counted_km).toBeCloseTo(km, 6);
  });

  it("the tax year's trips count it", async () => {
    const rows = await h.report('logbook_years', { from: addDays(day, -1), to: day });
    const trips = rows
      .filter((r) => r.vehicle_id === across.vehicle_id)
      .reduce((n, r) => n + Number(r.trips), 0);
    expect(trips).toBe(truth.filter((t) => t.vehicle_id === across.vehicle_id).length);
  });

  it("the day's facts it starts on (the trips' per vehicle and per driver) equal those computed from the trips", async () => {
    const raw = await h.db.connect();
    try {
      await useRawFacts(raw);
      const read = async (c: DuckDBConnection) =>
        (
          await c.runAndReadAll(
            `SELECT 'vehicle' AS facts, vehicle_id, strftime(day, '%Y-%m-%d') AS day, NULL AS driver_id, trips, trip_distance_m
             FROM vehicle_day_facts($1, $2, DATE '1970-01-01', DATE '2999-12-31') WHERE stream = 'trips' AND trips > 0
             UNION ALL
             SELECT 'driver', vehicle_id, strftime(day, '%Y-%m-%d'), driver_id, trips, trip_distance_m
             FROM trip_day_facts_in($1, $2, DATE '1970-01-01', DATE '2999-12-31')
             ORDER BY ALL`,
            [ACCOUNT, h.fleet.timezone],
          )
        ).getRowObjectsJS();
      const stored = await read(con);
      expect(stored.filter((r) => r.day === addDays(day, -1)).length).toBeGreaterThan(0);
      expect(stored).toEqual(await read(raw));
    } finally {
      raw.closeSync();
    }
  });
});
