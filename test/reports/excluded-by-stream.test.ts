/**
 * The per-stream "left out" reports: excluded_odometer_windows (mileage page) holds the odometer
 * windows of excluded_windows and nothing else, excluded_fuel_windows the fuel-counter ones; each
 * adds up to its total report's excluded_periods. left_out_km is the trip log's distance in the
 * window, and blank (unknown) until done trips windows cover the whole window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT,
  APR_11,
  APR_START,
  MAY_START,
  NOW,
  T,
  reportRows,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;

beforeAll(async () => {
  fx = await openFixture();
});
afterAll(() => fx?.close());

const run = (name: string, raw: Record<string, string>) => reportRows(fx.con, name, raw);
const RANGE = { from: '2026-03-01', to: '2026-04-30' };
const key = (r: Record<string, unknown>) => [r.vehicle_id, r.window_start, r.window_end, r.reason];

describe('windows left out, one report per stream', () => {
  it('odometer: exactly the odometer rows of excluded_windows, and the mileage excluded_periods', async () => {
    const all = await run('excluded_windows', RANGE);
    const odo = await run('excluded_odometer_windows', RANGE);
    expect(odo.map(key)).toEqual(all.filter((r) => r.stream === 'odometer').map(key));
    expect(odo.map((r) => r.reason)).toEqual(['odometer_reset', 'terminal_has_changed']);
    expect(odo.every((r) => !('stream' in r) && !('counter_start_l' in r))).toBe(true);
    const mileage = await run('mileage', RANGE);
    expect(odo.length).toBe(mileage.reduce((s, r) => s + Number(r.excluded_periods), 0));
    expect(await run('excluded_odometer_windows', { ...RANGE, vehicle: '2' })).toEqual([
      expect.objectContaining({ registration: 'cd 456 gp', reason: 'terminal_has_changed', span_h: 24 }),
    ]);
  });

  it('fuel: exactly the fuel-counter rows of excluded_windows, and the fuel excluded_periods', async () => {
    const all = await run('excluded_windows', RANGE);
    const fuel = await run('excluded_fuel_windows', RANGE);
    expect(fuel.map(key)).toEqual(all.filter((r) => r.stream === 'fuel_consumed').map(key));
    expect(fuel).toEqual([
      expect.objectContaining({ vehicle_id: 1, counter_start_l: 170, counter_end_l: 5, span_h: 24 }),
    ]);
    const rows = await run('fuel', RANGE);
    expect(fuel.length).toBe(rows.reduce((s, r) => s + Number(r.excluded_periods), 0));
  });

  it('left_out_km: blank until the trips of the window are synced, then their distance', async () => {
    const before = await run('excluded_odometer_windows', { ...RANGE, vehicle: '1' });
    expect(before).toEqual([expect.objectContaining({ left_out_km: null, reported_distance_km: 999_999 })]);
    await fx.con.run(`INSERT INTO trips (account, trip_id, vehicle_id, registration, start_time, end_time,
        trip_distance_m) VALUES
      ('${ACCOUNT}', 'x1', 1, 'ab 123 gp', '${new Date(T('2026-04-11T01:00:00Z')).toISOString()}',
        '${new Date(T('2026-04-11T02:00:00Z')).toISOString()}', 8000),
      ('${ACCOUNT}', 'x2', 1, 'ab 123 gp', '${new Date(T('2026-04-11T05:00:00Z')).toISOString()}',
        '${new Date(T('2026-04-11T06:00:00Z')).toISOString()}', 4500)`);
    // a done fleet-wide trips window covering only part of the odometer window: still unknown
    const led = (s: number, e: number) =>
      fx.con
        .run(`INSERT INTO ledger (account, stream, scope, window_start, window_end, status, fetched_at, run_id)
        VALUES ('${ACCOUNT}', 'trips', '*', '${new Date(s).toISOString()}', '${new Date(e).toISOString()}', 'done',
          '${new Date(NOW).toISOString()}', 'run-2')`);
    await led(APR_START, APR_11 + 3_600_000);
    expect((await run('excluded_odometer_windows', { ...RANGE, vehicle: '1' }))[0]!.left_out_km).toBeNull();
    await led(APR_11 + 3_600_000, MAY_START);
    expect((await run('excluded_odometer_windows', { ...RANGE, vehicle: '1' }))[0]!.left_out_km).toBe(12.5);
  });
});
