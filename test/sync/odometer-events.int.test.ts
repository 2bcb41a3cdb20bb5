/**
 * The odometer cases the simulator can now stage: a window holding both an odometer reset and a
 * tracker swap, an event on the daylight-saving change day (a 25-hour local day), and a month with
 * two events. The sync splits each flagged window down to its local day, names both reasons where
 * both happened, and every clean window carries the true distance, so mileage is the truth less
 * exactly the flagged days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localDayBounds, localMonth } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const HOUR = 3_600_000;
// History: 75 local days ending 2026-04-20 in Australia/Sydney; day 59 is 2026-04-05, when the
// clocks go back (25 hours).
const BOTH = 0; // reset at 03:00 and tracker swap at 05:00 on day 40
const DST = 4; // reset on day 59
const TWO = 9; // reset on day 45 and swap on day 52, both in March
const EVENTS = [
  { vehicleIndex: BOTH, day: 40, kind: 'odometer_reset' as const },
  { vehicleIndex: BOTH, day: 40, kind: 'terminal_has_changed' as const, hour: 5 },
  { vehicleIndex: DST, day: 59, kind: 'odometer_reset' as const },
  { vehicleIndex: TWO, day: 45, kind: 'odometer_reset' as const },
  { vehicleIndex: TWO, day: 52, kind: 'terminal_has_changed' as const },
];

let h: Harness;
type Row = {
  s: number;
  e: number;
  distance_m: number;
  reset: boolean;
  swap: boolean;
  status: string;
  reason: string;
};
const byVehicle = new Map<number, Row[]>();

beforeAll(async () => {
  h = await startHarness({ fleet: { odometerEvents: EVENTS } });
  expect((await h.sync({ streams: ['vehicles', 'odometer'] })).outcome).toBe('ok');
  const con = await h.db.connect();
  const rows = (
    await con.runAndReadAll(
      `SELECT o.vehicle_id, epoch_ms(o.window_start) AS s, epoch_ms(o.window_end) AS e, o.distance_m,
              o.odometer_reset AS reset, o.terminal_has_changed AS swap, l.status, l.reason
       FROM odometer_windows AS o
       JOIN ledger AS l ON l.account = o.account AND l.stream = 'odometer' AND l.scope = o.vehicle_id::VARCHAR
         AND l.window_start = o.window_start AND l.window_end = o.window_end
       WHERE o.account = $1 ORDER BY o.vehicle_id, s`,
      [ACCOUNT],
    )
  ).getRowObjectsJS();
  con.closeSync();
  for (const r of rows) {
    const id = Number(r.vehicle_id);
    const list = byVehicle.get(id) ?? [];
    list.push({
      s: Number(r.s),
      e: Number(r.e),
      distance_m: Number(r.distance_m),
      reset: r.reset === true,
      swap: r.swap === true,
      status: String(r.status),
      reason: String(r.reason),
    });
    byVehicle.set(id, list);
  }
}, 120_000);
afterAll(() => h?.close());

const idOf = (index: number) => h.fleet.vehicles[index]!.vehicle_id;
const eventsOf = (index: number) => h.fleet.odometerEvents.filter((e) => e.vehicle_id === idOf(index));
const dayOf = (index: number) => addDays(h.firstDay, index);

describe('odometer events staged by the simulator', () => {
  it('knows the staged events in its truth', () => {
    expect(eventsOf(BOTH).map((e) => e.kind)).toEqual(['odometer_reset', 'terminal_has_changed']);
    expect(eventsOf(TWO).map((e) => e.kind)).toEqual(['odometer_reset', 'terminal_has_changed']);
    const dst = localDayBounds(dayOf(59), h.fleet.timezone);
    expect(dst.endMs - dst.startMs).toBe(25 * HOUR);
    expect(eventsOf(DST).some((e) => e.at_ms >= dst.startMs && e.at_ms < dst.endMs)).toBe(true);
  });

  it('flags one local-day window holding both the reset and the swap, naming both', () => {
    const flagged = byVehicle.get(idOf(BOTH))!.filter((r) => r.status === 'flagged');
    const day = localDayBounds(dayOf(40), h.fleet.timezone);
    const both = flagged.filter((r) => r.s === day.startMs && r.e === day.endMs);
    expect(both).toHaveLength(1);
    expect(both[0]!.reset && both[0]!.swap).toBe(true);
    expect(both[0]!.reason).toBe('odometer_reset and terminal_has_changed');
  });

  it('splits the 25-hour change day whole, and a month with two events into two flagged days', () => {
    const dst = localDayBounds(dayOf(59), h.fleet.timezone);
    const d = byVehicle.get(idOf(DST))!.filter((r) => r.status === 'flagged');
    expect(d.map((r) => [r.s, r.e])).toContainEqual([dst.startMs, dst.endMs]);
    const two = byVehicle.get(idOf(TWO))!.filter((r) => r.status === 'flagged');
    const march = two.filter((r) => localMonth(r.s, h.fleet.timezone) === '2026-03');
    expect(march.map((r) => [r.s, r.e])).toEqual(
      [45, 52].map((i) => {
        const b = localDayBounds(dayOf(i), h.fleet.timezone);
        return [b.startMs, b.endMs];
      }),
    );
  });

  it('gives every clean window the true distance: mileage is the truth less the flagged days', () => {
    for (const index of [BOTH, DST, TWO]) {
      const id = idOf(index);
      const rows = byVehicle.get(id)!;
      let clean = 0;
      let flaggedTruth = 0;
      for (const r of rows) {
        const truth = h.fleet.truth.distanceM(id, r.s, r.e);
        if (r.status === 'flagged') {
          expect(r.e - r.s).toBeLessThanOrEqual(25 * HOUR);
          flaggedTruth += truth;
        } else {
          expect(Math.abs(r.distance_m - truth), `${id} ${r.s}`).toBeLessThanOrEqual(2);
          clean += r.distance_m;
        }
      }
      const total = h.fleet.truth.distanceM(id, h.fleet.startMs, h.fleet.endMs);
      expect(Math.abs(clean - (total - flaggedTruth))).toBeLessThanOrEqual(2 * rows.length);
      // Every event lies in a flagged window.
      for (const e of eventsOf(index))
        expect(rows.some((r) => r.status === 'flagged' && e.at_ms >= r.s && e.at_ms < r.e)).toBe(true);
    }
  });
});
