import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLocal, parseWireTimestamp } from '../../src/time.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { END_DAY, ZONE, enc, startTestSim, type One, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const local = (ms: number) => formatLocal(ms, ZONE);

describe('served as of now', () => {
  it('returns trips overlapping the window whole, and a trip only once it has ended', async () => {
    const v = t.fleet.vehicles[0]!;
    const trips = t.fleet.tripsOf(v.vehicle_id);
    const mid = trips[Math.floor(trips.length / 2)]!;
    // A window of one second inside the trip still returns it, with its full timestamps.
    const inside = mid.start_ms + Math.floor((mid.end_ms - mid.start_ms) / 2000) * 1000;
    const q = { start_timestamp: local(inside), end_timestamp: local(inside) };
    const r = (await t.get(`/trips/${enc(v.registration)}`, q)).json();
    expect(r.data.map((x) => x.trip_id)).toEqual([mid.trip_id]);
    expect(parseWireTimestamp(r.data[0]!.start_timestamp as string)).toBe(
      mid.start_ms - (mid.start_ms % 1000),
    );
    expect(r.data[0]!.trip_distance).toBe(Math.round(mid.distance_m));
    // Before the trip ends it is not listed; once the clock passes its end it is.
    const saved = t.now();
    t.setNow(inside + 1000);
    expect((await t.get(`/trips/${enc(v.registration)}`, q)).json().data).toEqual([]);
    t.setNow(mid.end_ms);
    expect((await t.get(`/trips/${enc(v.registration)}`, q)).json().data).toHaveLength(1);
    t.setNow(saved);
  });

  it('shows more trips as the injected clock advances', async () => {
    const v = t.fleet.vehicles[0]!;
    const trips = t.fleet.tripsOf(v.vehicle_id).filter((x) => x.start_ms >= t.fleet.endMs - 10 * 86_400_000);
    const q = {
      start_timestamp: local(trips[0]!.start_ms),
      end_timestamp: local(t.fleet.endMs - 1000),
      limit: '500',
    };
    const saved = t.now();
    t.setNow(trips[3]!.end_ms);
    const early = (await t.get(`/trips/${enc(v.registration)}`, q)).json().meta.total as number;
    t.setNow(trips[8]!.end_ms);
    const later = (await t.get(`/trips/${enc(v.registration)}`, q)).json().meta.total as number;
    t.setNow(saved);
    expect(early).toBe(4);
    expect(later).toBe(9);
  });

  it('holds back data of a late-reporting vehicle until its delay has passed', async () => {
    const late = await startTestSim({
      fleet: generateFleet({ seed: 7, vehicles: 8, days: 40, timezone: ZONE, endDay: END_DAY }),
    });
    try {
      const v = late.fleet.vehicles.find((x) => x.report_delay_ms > 0)!;
      const last = late.fleet.tripsOf(v.vehicle_id).at(-1)!;
      const q = { start_timestamp: local(last.start_ms), end_timestamp: local(last.end_ms) };
      late.setNow(last.end_ms + v.report_delay_ms - 1000);
      expect((await late.get(`/trips/${enc(v.registration)}`, q)).json().data).toHaveLength(0);
      late.setNow(last.end_ms + v.report_delay_ms);
      expect((await late.get(`/trips/${enc(v.registration)}`, q)).json().data).toHaveLength(1);
    } finally {
      await late.sim.close();
    }
  });

  it('lists a visit only when its enter is in the range and the vehicle has left', async () => {
    const all = t.fleet.vehicles.flatMap((v) => t.fleet.visitsOf(v.vehicle_id));
    const visit = all.find((x) => x.exit_ms - x.enter_ms >= 10_000)!;
    const key = (x: Record<string, unknown>) => `${x.vehicle_id}|${x.geofence_id}|${x.enter_timestamp}`;
    const mine = `${visit.vehicle_id}|${visit.geofence_id}|${formatLocal(visit.enter_ms, ZONE)}`;
    const has = async (enterFrom: number, enterTo: number) =>
      (
        await t.get('/geofences/visits', {
          'filter[enter_timestamp]': local(enterFrom),
          'filter[exit_timestamp]': local(enterTo),
          'filter[vehicle_id]': String(visit.vehicle_id),
          limit: '500',
        })
      )
        .json()
        .data.some((x) => key(x).startsWith(mine));
    const saved = t.now();
    expect(await has(visit.enter_ms, visit.enter_ms)).toBe(true);
    expect(await has(visit.enter_ms - 3_600_000, visit.enter_ms - 1000)).toBe(false); // enter after the range
    expect(await has(visit.enter_ms + 1000, visit.enter_ms + 3_600_000)).toBe(false); // enter before the range
    t.setNow(visit.exit_ms - 1000);
    expect(await has(visit.enter_ms, visit.enter_ms)).toBe(false); // still inside
    t.setNow(visit.exit_ms);
    expect(await has(visit.enter_ms, visit.enter_ms)).toBe(true);
    t.setNow(saved);
  });

  it('lists the listed-twice fill twice', async () => {
    const v = t.fleet.vehicles.find((x) => t.fleet.fillsOf(x.vehicle_id).some((f) => f.listed_twice))!;
    const f = t.fleet.fillsOf(v.vehicle_id).find((x) => x.listed_twice)!;
    const q = { start_timestamp: local(f.at_ms), end_timestamp: local(f.at_ms) };
    const r = (await t.get(`/fuel/fills/${enc(v.registration)}`, q)).json();
    expect(r.data).toHaveLength(2);
    expect(r.data[0]).toEqual(r.data[1]);
    expect(r.data[0]!.fill_amount_litres).toBeCloseTo(f.litres, 2);
  });

  it('flags odometer windows holding a reset or tracker change, with garbage distance', async () => {
    const e = t.fleet.odometerEvents[0]!;
    const v = t.fleet.vehicles.find((x) => x.vehicle_id === e.vehicle_id)!;
    const get = async (from: number, to: number) =>
      (
        await t.get(`/vehicles/${enc(v.registration)}/odometer`, {
          start_timestamp: local(from),
          end_timestamp: local(to),
        })
      ).json<One>().data;
    const flagged = await get(e.at_ms - 86_400_000, e.at_ms + 86_400_000);
    expect(flagged[e.kind]).toBe(true);
    expect(flagged.distance).toBe(
      (flagged.end_odometer_value as number) - (flagged.start_odometer_value as number),
    );
    const clean = await get(e.at_ms - 3 * 86_400_000, e.at_ms - 2 * 86_400_000);
    expect(clean.odometer_reset).toBe(false);
    expect(clean.terminal_has_changed).toBe(false);
    const from = e.at_ms - 3 * 86_400_000;
    const to = e.at_ms - 2 * 86_400_000;
    const truth = t.fleet.truth.distanceM(v.vehicle_id, from - (from % 1000), to - (to % 1000) + 1000);
    expect(Math.abs((clean.distance as number) - truth)).toBeLessThan(2);
    expect(clean).toHaveProperty('last_event_ts');
    expect(clean).not.toHaveProperty('latest_event_ts');
    // A window still open at now: last_event_ts is not after now.
    const saved = t.now();
    t.setNow(e.at_ms + 3_600_000);
    const open = await get(e.at_ms + 1000, e.at_ms + 86_400_000);
    expect(parseWireTimestamp(open.last_event_ts as string)!).toBeLessThanOrEqual(t.now());
    t.setNow(saved);
    expect(
      (await get(t.fleet.startMs - 10 * 86_400_000, t.fleet.startMs - 5 * 86_400_000)) ?? null,
    ).toBeNull();
  });
});
