/**
 * Late data: a vehicle whose tracker uploads hours late leaves its latest odometer window
 * incomplete; a later run pulls it again and the stored distance then matches the truth. Windows
 * inside the look-back stay incomplete until they settle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLandmarks } from '../../src/simulator/generate.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const HOUR = 3_600_000;
let h: Harness;
let lateVehicle: number;

async function ledger(stream: string, scope: string) {
  const con = await h.db.connect();
  try {
    return (
      await con.runAndReadAll(
        'SELECT window_start, window_end, status, reason FROM ledger WHERE account = $1 AND stream = $2 AND scope = $3 ORDER BY window_start',
        [ACCOUNT, stream, scope],
      )
    ).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

beforeAll(async () => {
  // The clock stands 2 h after the end of history; late data settles after 1 h; odometer data
  // more than 2 h behind the window end marks it incomplete.
  h = await startHarness({ nowOffsetMs: 2 * HOUR, deps: { settleMs: HOUR, odometerLagMs: 2 * HOUR } });
  lateVehicle = findLandmarks(h.fleet).lateReporterId!;
}, 60_000);
afterAll(() => h?.close());

describe('late data', () => {
  it('leaves only the late reporter’s last odometer window incomplete, then completes it', async () => {
    const delayed = h.fleet.vehicles.find((v) => v.vehicle_id === lateVehicle)!;
    expect(delayed.report_delay_ms).toBeGreaterThanOrEqual(3 * HOUR);
    const first = await h.sync();
    expect(first.outcome).toBe('ok');
    const rows = await ledger('odometer', String(lateVehicle));
    const last = rows.at(-1)!;
    expect(last.status).toBe('incomplete');
    expect(String(last.reason)).toMatch(/last event \d+ h before the window end/);
    // Every other vehicle's last window is complete.
    for (const v of h.fleet.vehicles.filter((x) => x.vehicle_id !== lateVehicle && x.report_delay_ms === 0)) {
      const r = (await ledger('odometer', String(v.vehicle_id))).at(-1);
      if (r) expect(r.status, v.registration).not.toBe('incomplete');
    }

    // The delayed data arrives; the next run of the same range pulls only what is not settled.
    h.advance(delayed.report_delay_ms + HOUR);
    const second = await h.sync();
    expect(second.streams.odometer?.requests).toBe(1);
    expect(second.outcome).toBe('ok');
    const after = (await ledger('odometer', String(lateVehicle))).find(
      (r) => (r.window_start as Date).getTime() === (last.window_start as Date).getTime(),
    );
    expect(after?.status).toBe('done');
    const con = await h.db.connect();
    const w = (
      await con.runAndReadAll(
        'SELECT window_start, window_end, distance_m FROM odometer_windows WHERE vehicle_id = $1 AND window_start = $2',
        [lateVehicle, (last.window_start as Date).toISOString()],
      )
    ).getRowObjectsJS()[0]!;
    con.closeSync();
    const truth = h.fleet.truth.distanceM(
      lateVehicle,
      (w.window_start as Date).getTime(),
      (w.window_end as Date).getTime(),
    );
    expect(Math.abs(Number(w.distance_m) - truth)).toBeLessThanOrEqual(2);
  }, 120_000);
});
