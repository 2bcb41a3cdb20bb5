/**
 * Issue 16 rewrote the report queries for speed (range bounds as constants the scan filters on;
 * lists ordered on their keys before anything is formatted, so a dashboard page is a top-N and an
 * export sorts no text; local times from the zone's offset per quarter hour). Issue 26 took away
 * the frozen copies of the queries they replaced: the rows are checked here against the
 * simulator's ground truth instead (its trips, toll visits and bookings; no rule of the reports is
 * restated), for the whole history, a range across the April clock change (Sydney), one vehicle
 * and one department: trips and tolls row for row in their order with their local times, the KPI
 * tiles, the trend per day (and its weeks and months as sums of those days), the top vehicles'
 * counts; and a JSON page is exactly that slice of the rows, its total and totals those of all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type JsonRow, type ReportScope } from '../../src/reports/run.ts';
import { addDays, localDate, localDayBounds, parseWireTimestamp } from '../../src/time.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';

let h: Harness;
let scope: ReportScope;
let ranges: Record<string, Record<string, string>>;
/** Each vehicle's department as the vehicles report (the filter bar) lists it. */
let departmentOf: Map<number, string | null>;

beforeAll(async () => {
  // Sydney: the history crosses the April clock change (2026-04-05). Only the sync's result is
  // read: the shared database of the fleet fuel-drops and the utilisation page use.
  const shared = await startSharedSync({ seed: 7, vehicles: 10, days: 45, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
  const vehicles = await h.report('vehicles');
  departmentOf = new Map(
    vehicles.map((r) => [Number(r.vehicle_id), (r.department as string | null) ?? null]),
  );
  const one = vehicles[0]!;
  const dept = vehicles.find((r) => r.department !== null)?.department;
  expect(dept, 'a vehicle with a department').toBeTruthy();
  ranges = {
    whole: { from: h.firstDay, to: h.lastDay },
    clockChange: { from: '2026-04-01', to: '2026-04-10' },
    vehicle: { from: h.firstDay, to: h.lastDay, vehicle: String(one.vehicle_id) },
    department: { from: h.firstDay, to: h.lastDay, department: String(dept) },
  };
}, 240_000);
afterAll(() => h?.close());

const ms = (text: unknown) => parseWireTimestamp(String(text));
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The range's instants [t0, t1): local midnight of `from` to local midnight after `to`. */
function span(raw: Record<string, string>) {
  return {
    t0: localDayBounds(raw.from!, scope.zone).startMs,
    t1: localDayBounds(raw.to!, scope.zone).endMs,
  };
}
/** Whether a vehicle is one the range's filter names (none: every vehicle). */
const chosen = (raw: Record<string, string>) => (vid: number) =>
  (raw.vehicle === undefined || Number(raw.vehicle) === vid) &&
  (raw.department === undefined || departmentOf.get(vid) === raw.department);

/** The fleet's trips that start in the range, of the chosen vehicles, by (start, trip id). */
function trueTrips(raw: Record<string, string>) {
  const { t0, t1 } = span(raw);
  return h.fleet.truth
    .trips(t0, t1)
    .filter((t) => t.start_ms >= t0 && chosen(raw)(t.vehicle_id))
    .sort((a, b) => a.start_ms - b.start_ms || (a.trip_id < b.trip_id ? -1 : a.trip_id > b.trip_id ? 1 : 0));
}
/** The fleet's toll-geofence visits entered in the range, of the chosen vehicles. */
function trueTolls(raw: Record<string, string>) {
  const { t0, t1 } = span(raw);
  return h.fleet.truth
    .tollVisits(t0, t1)
    .filter((v) => chosen(raw)(v.vehicle_id))
    .sort(
      (a, b) =>
        a.enter_ms - b.enter_ms ||
        a.vehicle_id - b.vehicle_id ||
        (a.geofence_id < b.geofence_id ? -1 : a.geofence_id > b.geofence_id ? 1 : 0),
    );
}
const countBy = <T>(items: readonly T[], key: (x: T) => string | number) => {
  const m = new Map<string | number, number>();
  for (const x of items) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
};
/** The ISO week (Monday) and the month a local day belongs to. */
const weekOf = (day: string) => addDays(day, -((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7));
const monthOf = (day: string) => day.slice(0, 7);

describe('the rewritten report queries against the ground truth, for every kind of range', () => {
  it('trips: every trip that starts in the range, in order, with its local times and distance', async () => {
    for (const [label, raw] of Object.entries(ranges)) {
      const truth = trueTrips(raw);
      const rows = await h.report('trips', raw);
      expect(truth.length, label).toBeGreaterThan(0);
      expect(
        rows.map((r) => [r.trip_id, Number(r.vehicle_id), ms(r.start_time), ms(r.end_time), r.local_date]),
        label,
      ).toEqual(
        truth.map((t) => [t.trip_id, t.vehicle_id, t.start_ms, t.end_ms, localDate(t.start_ms, scope.zone)]),
      );
      for (const [i, t] of truth.entries()) {
        expect(rows[i]!.distance_km, `${label} ${t.trip_id}`).toBeCloseTo(t.distance_m / 1000, 2);
        expect(rows[i]!.department, `${label} ${t.trip_id}`).toBe(departmentOf.get(t.vehicle_id));
        expect(rows[i]!.utc_date).toBe(new Date(t.start_ms).toISOString().slice(0, 10));
      }
    }
  });

  it('tolls: every toll-geofence visit entered in the range, in order, with its gantry and times', async () => {
    const names = new Map(h.fleet.geofences.map((g) => [g.geofence_id, g.name]));
    for (const [label, raw] of Object.entries(ranges)) {
      const truth = trueTolls(raw);
      const rows = await h.report('tolls', raw);
      expect(truth.length, label).toBeGreaterThan(0);
      expect(
        rows.map((r) => [
          Number(r.vehicle_id),
          r.geofence_id,
          r.geofence_name,
          ms(r.enter_time),
          ms(r.exit_time),
          r.duration_s,
          r.local_date,
        ]),
        label,
      ).toEqual(
        truth.map((v) => [
          v.vehicle_id,
          v.geofence_id,
          names.get(v.geofence_id),
          v.enter_ms,
          v.exit_ms,
          Math.round((v.exit_ms - v.enter_ms) / 1000),
          localDate(v.enter_ms, scope.zone),
        ]),
      );
      // the gantry breakdown adds up to the same passages
      const gantries = await h.report('toll_gantries', raw);
      expect(new Map(gantries.map((g) => [g.geofence_id, g.passages])), label).toEqual(
        countBy(truth, (v) => v.geofence_id),
      );
    }
  });

  it('kpis: toll passages, trips, bookings and vehicles of the selection', async () => {
    for (const [label, raw] of Object.entries(ranges)) {
      const { t0, t1 } = span(raw);
      const [k] = await h.report('kpis', raw);
      const bookings = h.fleet.truth
        .bookings(t0, t1, scope.nowMs)
        .filter((b) => chosen(raw)(b.booking.vehicle_id));
      expect([k!.toll_passages, k!.trips, k!.bookings, k!.vehicles, k!.coverage], label).toEqual([
        trueTolls(raw).length,
        trueTrips(raw).length,
        bookings.length,
        [...departmentOf.keys()].filter(chosen(raw)).length,
        'complete',
      ]);
    }
  });

  it('trend: trips, trip distance and toll passages per local day; weeks and months are sums of their days', async () => {
    for (const [label, raw] of Object.entries(ranges)) {
      const trips = trueTrips(raw);
      const tripsPerDay = countBy(trips, (t) => localDate(t.start_ms, scope.zone));
      const tollsPerDay = countBy(trueTolls(raw), (v) => localDate(v.enter_ms, scope.zone));
      const days = await h.report('trend', { ...raw, grain: 'day' });
      const expectedDays: string[] = [];
      for (let d = raw.from!; d <= raw.to!; d = addDays(d, 1)) expectedDays.push(d);
      expect(
        days.map((r) => r.period),
        label,
      ).toEqual(expectedDays);
      for (const r of days) {
        const day = String(r.period);
        expect([r.trips, r.toll_passages], `${label} ${day}`).toEqual([
          tripsPerDay.get(day) ?? 0,
          tollsPerDay.get(day) ?? 0,
        ]);
        const km = trips
          .filter((t) => localDate(t.start_ms, scope.zone) === day)
          .reduce((s, t) => s + t.distance_m / 1000, 0);
        expect(r.trip_distance_km, `${label} ${day}`).toBeCloseTo(round3(km), 1);
      }
      for (const [grain, of] of [
        ['week', weekOf],
        ['month', monthOf],
      ] as const) {
        const rows = await h.report('trend', { ...raw, grain });
        const sums = new Map<string, [number, number]>();
        for (const r of days) {
          const p = of(String(r.period));
          const [a, b] = sums.get(p) ?? [0, 0];
          sums.set(p, [a + Number(r.trips), b + Number(r.toll_passages)]);
        }
        expect(
          new Map(rows.map((r) => [String(r.period), [r.trips, r.toll_passages]])),
          `${label} ${grain}`,
        ).toEqual(sums);
      }
    }
  });

  it('top_vehicles: each selected vehicle with its trips and toll passages, by distance', async () => {
    for (const [label, raw] of Object.entries(ranges)) {
      const rows = await h.report('top_vehicles', raw);
      const selected = [...departmentOf.keys()].filter(chosen(raw));
      expect(rows.map((r) => Number(r.vehicle_id)).sort(), label).toEqual(selected.slice(0, 10).sort());
      const trips = countBy(trueTrips(raw), (t) => t.vehicle_id);
      const tolls = countBy(trueTolls(raw), (v) => v.vehicle_id);
      for (const r of rows)
        expect([r.trips, r.toll_passages], `${label} ${r.vehicle_id}`).toEqual([
          trips.get(Number(r.vehicle_id)) ?? 0,
          tolls.get(Number(r.vehicle_id)) ?? 0,
        ]);
      // ordered by distance, the mileage report's per vehicle
      const mileage = await h.report('mileage', raw);
      const km = new Map<number, number>();
      for (const m of mileage)
        km.set(Number(m.vehicle_id), (km.get(Number(m.vehicle_id)) ?? 0) + Number(m.distance_km ?? 0));
      for (const r of rows)
        expect(r.distance_km, `${label} ${r.vehicle_id}`).toBeCloseTo(km.get(Number(r.vehicle_id))!, 3);
      const distances = rows.map((r) => Number(r.distance_km));
      expect(distances, label).toEqual([...distances].sort((a, b) => b - a));
    }
  });

  for (const name of ['trips', 'tolls'])
    it(`${name}: a JSON page is the slice of all the rows; total and totals over all of them`, async () => {
      const def = requireReport(name);
      const con = await h.db.connect();
      try {
        const params = parseReportParams(ranges.whole!, def, scope);
        const all: JsonRow[] = (await runReport(con, def, scope, params)).rows;
        expect(all.length).toBe(
          name === 'trips' ? trueTrips(ranges.whole!).length : trueTolls(ranges.whole!).length,
        );
        for (const offset of [0, 7, all.length - 3]) {
          const page = await runReport(con, def, scope, params, { limit: 10, offset });
          expect(page.rows).toEqual(all.slice(offset, offset + 10));
          expect(page.total).toBe(all.length);
          for (const c of def.columns.filter((x) => x.total))
            expect(page.totals[c.name]).toBeCloseTo(
              all.reduce((s, r) => s + Number(r[c.name] ?? 0), 0),
              2,
            );
        }
      } finally {
        con.closeSync();
      }
    });
});
