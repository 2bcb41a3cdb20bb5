/**
 * End to end: a generated fleet served by the simulator on port 0, synced into a temp DuckDB
 * file by the real sync, then the reports compared with the fleet's ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportScope } from '../../src/reports/run.ts';
import { parseWireTimestamp, localMonthBounds } from '../../src/time.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';

let h: Harness;
let scope: ReportScope;

beforeAll(async () => {
  // Only the sync's result is read: the shared database of the harness' own fleet (14 vehicles,
  // the fewest that hold both booking traps; daily-facts uses it too).
  const shared = await startSharedSync();
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
}, 180_000);
afterAll(() => h?.close());

const report = (name: string, raw: Record<string, string>) => h.report(name, raw);

const ms = (iso: unknown) => parseWireTimestamp(String(iso))!;
const range = () => ({ from: h.firstDay, to: h.lastDay });

describe('reports of a synced simulator against its ground truth', () => {
  it('mileage = true distance minus the excluded (flagged) windows, per vehicle and local month', async () => {
    const rows = await report('mileage', range());
    const excluded = (await report('excluded_windows', range())).filter((r) => r.stream === 'odometer');
    expect(rows.length).toBeGreaterThan(0);
    let withExclusions = 0;
    for (const r of rows) {
      const vid = Number(r.vehicle_id);
      const b = localMonthBounds(String(r.period), scope.zone);
      const from = Math.max(b.startMs, h.fleet.startMs);
      const to = Math.min(b.endMs, h.fleet.endMs);
      const mine = excluded.filter((x) => x.vehicle_id === vid && x.period === r.period);
      expect(mine.length, `${vid} ${r.period}`).toBe(r.excluded_periods);
      if (mine.length) withExclusions++;
      const left = mine.reduce(
        (s, x) => s + h.fleet.truth.distanceM(vid, ms(x.window_start), ms(x.window_end)),
        0,
      );
      const expected = (h.fleet.truth.distanceM(vid, from, to) - left) / 1000;
      expect(Number(r.distance_km), `${vid} ${r.period}`).toBeCloseTo(expected, 1);
      // complete only when the whole local month lies inside the synced history: the last month's
      // days after it (ended by the clock, never synced) leave it not complete (issue 25)
      expect(r.complete, `${vid} ${r.period}`).toBe(b.startMs >= h.fleet.startMs && b.endMs <= h.fleet.endMs);
      // a flagged window is small: at most one local day (25 h across a DST change)
      for (const x of mine) expect(Number(x.span_h)).toBeLessThanOrEqual(25);
    }
    // the generator puts odometer resets / tracker swaps into the history
    expect(withExclusions).toBe(new Set(h.fleet.odometerEvents.map((e) => e.vehicle_id)).size);
  });

  it('fuel (counter vehicles) = true fuel minus the windows whose counter went down; never negative', async () => {
    const rows = await report('fuel', range());
    const excluded = (await report('excluded_windows', range())).filter((r) => r.stream === 'fuel_consumed');
    const can = new Set(h.fleet.vehicles.filter((v) => v.powertrain === 'can').map((v) => v.vehicle_id));
    // every vehicle is listed (issue 12): EVs and sensorless ones with their source and no litres
    const sourceOf = {
      analog: 'level_estimate',
      electric: 'electric',
      none: 'none',
      can: 'counter',
    } as const;
    for (const r of rows) {
      expect(Number(r.fuel_used_l ?? 0)).toBeGreaterThanOrEqual(0);
      const vid = Number(r.vehicle_id);
      if (!can.has(vid)) {
        const p = h.fleet.vehicles.find((v) => v.vehicle_id === vid)!.powertrain;
        expect(r.source).toBe(sourceOf[p]);
        if (p === 'electric' || p === 'none') expect(r.fuel_used_l).toBeNull();
        continue;
      }
      expect(r.source).toBe('counter');
      const b = localMonthBounds(String(r.period), scope.zone);
      const mine = excluded.filter((x) => x.vehicle_id === vid && x.period === r.period);
      expect(mine.length).toBe(r.excluded_periods);
      const left = mine.reduce(
        (s, x) => s + h.fleet.truth.fuelUsedL(vid, ms(x.window_start), ms(x.window_end)),
        0,
      );
      const expected =
        h.fleet.truth.fuelUsedL(vid, Math.max(b.startMs, h.fleet.startMs), Math.min(b.endMs, h.fleet.endMs)) -
        left;
      expect(Number(r.fuel_used_l), `${vid} ${r.period}`).toBeCloseTo(expected, 0);
    }
  });

  it('tolls = the true toll-geofence visits', async () => {
    const rows = await report('tolls', range());
    const truth = h.fleet.truth.tollVisits(h.fleet.startMs, h.fleet.endMs);
    expect(rows.length).toBe(truth.length);
    const key = (v: number, g: string, t: number) => `${v}|${g}|${Math.floor(t / 1000)}`;
    const got = new Set(rows.map((r) => key(Number(r.vehicle_id), String(r.geofence_id), ms(r.enter_time))));
    for (const t of truth) expect(got.has(key(t.vehicle_id, t.geofence_id, t.enter_ms))).toBe(true);
  });

  it('trips = the true trips starting in the range', async () => {
    const rows = await report('trips', range());
    const truth = h.fleet.truth
      .trips(h.fleet.startMs, h.fleet.endMs)
      .filter((t) => t.start_ms >= h.fleet.startMs);
    expect(rows.length).toBe(truth.length);
  });

  it('carpool lateness follows booking_status, traps included', async () => {
    const rows = await report('carpool', range());
    const truth = h.fleet.truth.bookings(h.fleet.startMs, h.fleet.endMs, scope.nowMs);
    const byId = new Map(rows.map((r) => [Number(r.booking_id), r]));
    let traps = 0;
    for (const v of truth) {
      const r = byId.get(v.booking.booking_id);
      expect(r, String(v.booking.booking_id)).toBeDefined();
      expect(r!.booking_status).toBe(v.status);
      const late = v.status === 'BOOKING_STATUS_ACTIVE_LATE' || v.status === 'BOOKING_STATUS_RETURNED_LATE';
      expect(r!.is_late, String(v.booking.booking_id)).toBe(late);
      if (v.booking.trap === 'returned_at_after_end' && v.status === 'BOOKING_STATUS_RETURNED') {
        expect(r!.is_late).toBe(false);
        traps++;
      }
      if (v.booking.trap === 'returned_late_before_end' && v.status === 'BOOKING_STATUS_RETURNED_LATE') {
        expect(r!.is_late).toBe(true);
        traps++;
      }
    }
    expect(traps).toBe(2);
  });

  it('KPIs tie to the report rows', async () => {
    const [k] = await report('kpis', range());
    const mileage = await report('mileage', range());
    const sum = mileage.reduce((s, r) => s + Number(r.distance_km ?? 0), 0);
    expect(k!.distance_km).toBeCloseTo(sum, 6);
    expect(k!.toll_passages).toBe((await report('tolls', range())).length);
    // Every window has settled (the clock is days past the history): complete through its end.
    expect(ms(k!.complete_through)).toBe(h.fleet.endMs);
  });
});
