/**
 * The sync against the simulator's ground truth: every stream stored, to the metre and the litre,
 * no duplicates, flagged windows small and only around the real events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localMonthBounds } from '../../src/time.ts';
import { monthWindows } from '../../src/sync/windows.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';
import type { RunSummary } from '../../src/sync/types.ts';

let h: Harness;
let run: RunSummary;

async function rows(sql: string, params: (string | number)[] = []) {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(sql, params)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}
const ms = (d: unknown) => (d as Date).getTime();

beforeAll(async () => {
  h = await startHarness();
  run = await h.sync();
}, 120_000);
afterAll(() => h?.close());

describe('a full sync of the simulator', () => {
  it('finishes ok with every window done or flagged, and no genuine 429', () => {
    expect(run.errors).toEqual([]);
    expect(run.outcome).toBe('ok');
    const st = h.sim.stats();
    expect(Object.values(st.rateLimited).reduce((a, b) => a + b, 0)).toBe(0);
    expect(run.requests).toBe(st.total);
  });

  it('stores exactly the trips of the range, once each', async () => {
    const truth = h.fleet.truth.trips(h.fleet.startMs, h.fleet.endMs);
    const stored = await rows(
      'SELECT trip_id, vehicle_id, start_time, end_time, trip_distance_m FROM trips WHERE account = $1',
      [ACCOUNT],
    );
    expect(stored.length).toBe(truth.length);
    const byId = new Map(stored.map((r) => [String(r.trip_id), r]));
    for (const t of truth) {
      const r = byId.get(t.trip_id);
      expect(r, t.trip_id).toBeDefined();
      expect(Number(r!.vehicle_id)).toBe(t.vehicle_id);
      expect(ms(r!.start_time)).toBe(Math.floor(t.start_ms / 1000) * 1000);
      expect(Number(r!.trip_distance_m)).toBeCloseTo(t.distance_m, -1);
    }
  });

  it('gives each vehicle its true monthly distance from clean odometer windows', async () => {
    const eventsBy = new Map(h.fleet.odometerEvents.map((e) => [e.vehicle_id, e]));
    const windows = await rows(
      'SELECT vehicle_id, window_start, window_end, distance_m, odometer_reset, terminal_has_changed FROM odometer_windows WHERE account = $1',
      [ACCOUNT],
    );
    for (const v of h.fleet.vehicles) {
      const mine = windows.filter((w) => Number(w.vehicle_id) === v.vehicle_id);
      const clean = mine.filter((w) => !w.odometer_reset && !w.terminal_has_changed);
      const flagged = mine.filter((w) => w.odometer_reset || w.terminal_has_changed);
      const event = eventsBy.get(v.vehicle_id);
      if (!event) expect(flagged, v.registration).toEqual([]);
      for (const f of flagged) {
        // Split down to at most one local day (25 h on a DST day), around the real event.
        expect(ms(f.window_end) - ms(f.window_start)).toBeLessThanOrEqual(25 * 3_600_000);
        expect(
          h.fleet.odometerEvents.some(
            (e) =>
              e.vehicle_id === v.vehicle_id && e.at_ms >= ms(f.window_start) && e.at_ms < ms(f.window_end),
          ),
        ).toBe(true);
      }
      for (const w of clean) {
        const truth = h.fleet.truth.distanceM(v.vehicle_id, ms(w.window_start), ms(w.window_end));
        expect(
          Math.abs(Number(w.distance_m) - truth),
          `${v.registration} ${String(w.window_start)}`,
        ).toBeLessThanOrEqual(2);
      }
      // Per month: stored clean distance + distance inside flagged windows = the truth.
      for (const m of monthWindows(h.fleet.startMs, h.fleet.endMs, h.fleet.timezone)) {
        const inMonth = (w: Record<string, unknown>) =>
          ms(w.window_start) >= m.startMs && ms(w.window_end) <= m.endMs;
        const cleanKm = clean.filter(inMonth).reduce((a, w) => a + Number(w.distance_m), 0);
        const excluded = flagged
          .filter(inMonth)
          .reduce(
            (a, w) => a + h.fleet.truth.distanceM(v.vehicle_id, ms(w.window_start), ms(w.window_end)),
            0,
          );
        const truth = h.fleet.truth.distanceM(v.vehicle_id, m.startMs, m.endMs);
        expect(Math.abs(cleanKm + excluded - truth)).toBeLessThanOrEqual(2 * 10);
      }
    }
    // Both spec events appear, each excluded only around its instant.
    expect(
      new Set(windows.filter((w) => w.odometer_reset).map((w) => Number(w.vehicle_id))).size,
    ).toBeGreaterThan(0);
    expect(
      new Set(windows.filter((w) => w.terminal_has_changed).map((w) => Number(w.vehicle_id))).size,
    ).toBeGreaterThan(0);
  });

  it('measures fuel used from the ECU counter, excluding only the day of the counter reset', async () => {
    const list = await rows(
      'SELECT vehicle_id, window_start, window_end, counter_start_l, counter_end_l FROM fuel_consumed WHERE account = $1',
      [ACCOUNT],
    );
    const can = h.fleet.vehicles.filter((v) => v.sensors.fuel_canbus_consumed);
    expect(can.length).toBeGreaterThan(0);
    for (const v of can) {
      const mine = list.filter((r) => Number(r.vehicle_id) === v.vehicle_id);
      expect(mine.length).toBeGreaterThan(0);
      for (const r of mine) {
        const used = Number(r.counter_end_l) - Number(r.counter_start_l);
        const truth = h.fleet.truth.fuelUsedL(v.vehicle_id, ms(r.window_start), ms(r.window_end));
        if (used < 0) {
          expect(ms(r.window_end) - ms(r.window_start)).toBeLessThanOrEqual(25 * 3_600_000);
          expect(
            h.fleet.fuelCounterResets.some(
              (x) =>
                x.vehicle_id === v.vehicle_id && x.at_ms >= ms(r.window_start) && x.at_ms < ms(r.window_end),
            ),
          ).toBe(true);
        } else expect(Math.abs(used - truth), `${v.registration}`).toBeLessThanOrEqual(0.05);
      }
    }
    const reset = h.fleet.fuelCounterResets[0];
    if (reset && reset.at_ms < h.fleet.endMs) {
      const flagged = await rows(
        "SELECT count(*)::INT AS n FROM ledger WHERE stream = 'fuel_consumed' AND status = 'flagged' AND scope = $1",
        [String(reset.vehicle_id)],
      );
      expect(Number(flagged[0]!.n)).toBe(1);
    }
  });

  it('stores level-sensor fuel as the truth has it: tank levels, litres used and every fill once', async () => {
    const level = h.fleet.vehicles.filter(
      (v) => !v.sensors.fuel_canbus_consumed && v.sensors.fuel_analog_level,
    );
    expect(level.length).toBeGreaterThan(0);
    const list = await rows(
      'SELECT vehicle_id, window_start, window_end, start_l, end_l, estimated_used_l FROM fuel_level WHERE account = $1',
      [ACCOUNT],
    );
    const fills = await rows('SELECT vehicle_id, fill_time, amount_l FROM fuel_fills WHERE account = $1', [
      ACCOUNT,
    ]);
    for (const v of level) {
      const mine = list.filter((r) => Number(r.vehicle_id) === v.vehicle_id);
      expect(mine.length, v.registration).toBeGreaterThan(0);
      let used = 0;
      for (const r of mine) {
        const [s, e] = [ms(r.window_start), ms(r.window_end)];
        expect(Math.abs(Number(r.start_l) - h.fleet.fuelLevelAt(v.vehicle_id, s)!)).toBeLessThanOrEqual(0.01);
        expect(Math.abs(Number(r.end_l) - h.fleet.fuelLevelAt(v.vehicle_id, e)!)).toBeLessThanOrEqual(0.01);
        const truth = h.fleet.truth.fuelUsedL(v.vehicle_id, s, e);
        expect(Math.abs(Number(r.estimated_used_l) - truth), `${v.registration} ${s}`).toBeLessThanOrEqual(
          0.05,
        );
        used += Number(r.estimated_used_l);
      }
      // The windows tile the history: their litres add up to the vehicle's true total.
      const total = h.fleet.truth.fuelUsedL(v.vehicle_id, h.fleet.startMs, h.fleet.endMs);
      expect(total).toBeGreaterThan(50);
      expect(Math.abs(used - total)).toBeLessThanOrEqual(0.05 * mine.length);
      const truthFills = h.fleet
        .fillsOf(v.vehicle_id)
        .filter((f) => f.at_ms >= h.fleet.startMs && f.at_ms < h.fleet.endMs)
        .map((f) => `${f.at_ms} ${f.litres.toFixed(2)}`)
        .sort();
      const stored = fills
        .filter((f) => Number(f.vehicle_id) === v.vehicle_id)
        .map((f) => `${ms(f.fill_time)} ${Number(f.amount_l).toFixed(2)}`)
        .sort();
      expect(stored, v.registration).toEqual(truthFills);
    }
  });

  it('stores the exact set of toll visits, once each', async () => {
    const truth = h.fleet.truth.tollVisits(h.fleet.startMs, h.fleet.endMs);
    const stored = await rows(
      'SELECT vehicle_id, geofence_id, enter_time, exit_time FROM geofence_visits WHERE account = $1',
      [ACCOUNT],
    );
    const key = (v: number, g: string, t: number) => `${v}|${g}|${Math.floor(t / 1000)}`;
    expect(
      new Set(stored.map((r) => key(Number(r.vehicle_id), String(r.geofence_id), ms(r.enter_time)))),
    ).toEqual(new Set(truth.map((t) => key(t.vehicle_id, t.geofence_id, t.enter_ms))));
    expect(stored.length).toBe(truth.length);
  });

  it('stores every booking with the status the API shows now', async () => {
    const stored = await rows(
      'SELECT booking_id, booking_status, is_approved FROM carpool_bookings WHERE account = $1',
      [ACCOUNT],
    );
    const byId = new Map(stored.map((r) => [Number(r.booking_id), r]));
    const truth = h.fleet.truth.bookings(h.fleet.startMs, h.fleet.endMs, h.now());
    expect(truth.length).toBeGreaterThan(0);
    for (const b of truth) {
      const r = byId.get(b.booking.booking_id);
      expect(r, String(b.booking.booking_id)).toBeDefined();
      expect(r!.booking_status).toBe(b.status);
      expect(r!.is_approved).toBe(b.is_approved);
    }
  });

  it('a second sync of the same range sends only what is not settled and changes nothing', async () => {
    const before = await rows('SELECT count(*)::INT AS n, sum(trip_distance_m) AS d FROM trips');
    const again = await h.sync();
    expect(again.outcome).toBe('ok');
    const after = await rows('SELECT count(*)::INT AS n, sum(trip_distance_m) AS d FROM trips');
    expect(after).toEqual(before);
    // Everything settled: only snapshots and the still-open bookings windows are pulled again.
    expect(again.requests).toBeLessThan(run.requests / 4);
  });

  it('plans the month windows the range needs', () => {
    expect(monthWindows(h.fleet.startMs, h.fleet.endMs, h.fleet.timezone)[0]!.startMs).toBe(h.fleet.startMs);
    expect(localMonthBounds('2026-04', h.fleet.timezone).startMs).toBeLessThan(h.fleet.endMs);
  });
});
