/**
 * A month-long window that reaches into the 72 h look-back for late data is cut at the local
 * midnight before it: the settled days are `done` at once, so "complete through" stands at that
 * midnight instead of the start of the month, and it moves forward night by night. The next run
 * replaces the whole month window, so no stale piece or double-counted distance is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate, localDayBounds, localMonthBounds, parseWireTimestamp } from '../../src/time.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

const HOUR = 3_600_000;
let h: Harness;

beforeAll(async () => {
  // The clock stands 2 days 5 h after the end of history: the last local day is still within
  // the 72 h look-back, the days before it are settled.
  h = await startHarness({
    fleet: { seed: 21, vehicles: 6, days: 40, endDay: '2026-04-20' },
    nowOffsetMs: 53 * HOUR,
  });
}, 60_000);
afterAll(() => h?.close());

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

const report = (name: string) => h.report(name);

const completeThrough = async () => parseWireTimestamp(String((await report('kpis'))[0]!.complete_through));

describe('complete through, with the recent days still open', () => {
  it('stands at the midnight before the look-back, not at the start of the month', async () => {
    const zone = h.fleet.timezone;
    expect((await h.sync()).outcome).toBe('ok');
    const cut = localDayBounds(localDate(h.now() - 72 * HOUR, zone), zone).startMs;
    const monthStart = localMonthBounds(h.lastDay.slice(0, 7), zone).startMs;
    expect(cut).toBeGreaterThan(monthStart);
    expect(await completeThrough()).toBe(cut);
    // The settled part of each vehicle's month is done; only the last day is incomplete.
    const odo = await query(
      `SELECT status, epoch_ms(window_start) AS s, epoch_ms(window_end) AS e FROM ledger
       WHERE stream = 'odometer' AND window_end > epoch_ms(${cut})::TIMESTAMPTZ - INTERVAL 1 DAY
       ORDER BY scope, window_start`,
    );
    expect(odo.filter((r) => r.status === 'incomplete').every((r) => Number(r.s) === cut)).toBe(true);
    expect(odo.some((r) => r.status === 'done' && Number(r.e) === cut)).toBe(true);
  });

  it('moves on once the last day settles; nothing is left twice', async () => {
    h.advance(24 * HOUR);
    expect((await h.sync()).outcome).toBe('ok');
    expect(await completeThrough()).toBe(h.fleet.endMs);
    // No incomplete or overlapping pieces left from the first run.
    const overlaps = await query(
      `SELECT count(*)::INTEGER AS n FROM odometer_windows a JOIN odometer_windows b
         ON a.vehicle_id = b.vehicle_id AND a.window_start < b.window_start AND b.window_start < a.window_end`,
    );
    expect(overlaps[0]!.n).toBe(0);
    const open = await query(
      "SELECT count(*)::INTEGER AS n FROM ledger WHERE status IN ('incomplete', 'failed') AND stream <> 'bookings'",
    );
    expect(open[0]!.n).toBe(0);
    // The month's mileage still equals the truth for a vehicle without a reset or tracker swap.
    const rows = await report('mileage');
    const clean = rows.filter((r) => r.excluded_periods === 0 && r.period === h.lastDay.slice(0, 7));
    expect(clean.length).toBeGreaterThan(0);
    const zone = h.fleet.timezone;
    const m = localMonthBounds(h.lastDay.slice(0, 7), zone);
    for (const r of clean) {
      const truthKm = h.fleet.truth.distanceM(Number(r.vehicle_id), m.startMs, h.fleet.endMs) / 1000;
      expect(Number(r.distance_km)).toBeCloseTo(truthKm, 2);
    }
  });
});
