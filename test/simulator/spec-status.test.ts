import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDriverOf } from '../../src/simulator/spec/status.ts';
import { enc, startTestSim, type Item, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const v0 = () => t.fleet.vehicles[0]!;
const active = () => t.fleet.drivers.filter((d) => !d.deactivated);

async function statusOf(i: number, query: Record<string, string> = {}): Promise<Item> {
  const r = await t.get('/vehicles/status', {
    'filter[vehicle_id]': String(t.fleet.vehicles[i]!.vehicle_id),
    ...query,
  });
  expect(r.status).toBe(200);
  const rows = r.json().data;
  expect(rows).toHaveLength(1);
  return rows[0]!;
}
const driverOf = async (i: number) =>
  (await statusOf(i)).driver as { driver_id: string; association: string } | null;

/** Two consecutive trips of vehicle 0 in the last week of history. */
function twoTrips() {
  const trips = t.fleet.tripsOf(v0().vehicle_id).filter((x) => x.start_ms > t.fleet.endMs - 7 * 86_400_000);
  for (let i = 0; i + 1 < trips.length; i++) {
    const [a, b] = [trips[i]!, trips[i + 1]!];
    if (b.start_ms - a.end_ms > 3_600_000 && a.end_ms - a.start_ms > 600_000) return [a, b] as const;
  }
  throw new Error('no two trips found');
}

describe('GET /vehicles/status: the current-driver rule', () => {
  it('falls back to the default driver, and some vehicles have none', async () => {
    const [a] = twoTrips();
    t.setNow(a.end_ms + 60_000);
    const d = await driverOf(0);
    expect(d).toMatchObject({ driver_id: defaultDriverOf(t.fleet, v0())!.driver_id, association: 'default' });
    expect(defaultDriverOf(t.fleet, t.fleet.vehicles[4]!)).toBeNull();
    const parkedFour = t.fleet.tripsOf(t.fleet.vehicles[4]!.vehicle_id).at(-1)!;
    t.setNow(parkedFour.end_ms + 60_000);
    expect(await driverOf(4)).toBeNull();
  });

  it('keeps a tag read while ignition is ON until ignition OFF, or until another tag is read', async () => {
    const [a] = twoTrips();
    const [x, y] = [active()[3]!, active()[4]!];
    t.setNow(a.start_ms + 60_000);
    t.sim.driverTagRead(v0().registration, x.driver_id);
    expect(await driverOf(0)).toMatchObject({ driver_id: x.driver_id, association: 'tag' });
    t.advance(60_000);
    expect((await statusOf(0)).ignition).toBe(true);
    expect((await driverOf(0))?.driver_id).toBe(x.driver_id);
    t.sim.driverTagRead(v0().registration, y.driver_id);
    expect((await driverOf(0))?.driver_id).toBe(y.driver_id);
    t.setNow(a.end_ms); // ignition OFF clears it
    expect((await statusOf(0)).ignition).toBe(false);
    expect(await driverOf(0)).toMatchObject({ association: 'default' });
  });

  it('ignores a tag read while ignition is OFF', async () => {
    const [a] = twoTrips();
    t.setNow(a.end_ms + 120_000);
    t.sim.driverTagRead(v0().registration, active()[5]!.driver_id);
    expect(await driverOf(0)).toMatchObject({ association: 'default' });
  });

  it('honours an app self-assignment until the next ignition OFF', async () => {
    const [a, b] = twoTrips();
    const z = active()[6]!;
    t.setNow(a.end_ms + 10 * 60_000);
    t.sim.appSelfAssign(v0().registration, z.driver_id);
    expect(await driverOf(0)).toMatchObject({ driver_id: z.driver_id, association: 'app' });
    t.setNow(b.start_ms + 60_000);
    expect((await driverOf(0))?.driver_id).toBe(z.driver_id); // still on during the next trip
    t.setNow(b.end_ms + 60_000);
    expect(await driverOf(0)).toMatchObject({ association: 'default' });
  });

  it('links and unlinks a driver through the linkage API', async () => {
    const [, b] = twoTrips();
    const w = active()[7]!;
    t.setNow(b.end_ms + 5 * 60_000);
    const path = `/vehicles/${enc(v0().registration)}/driver-linkage`;
    expect((await t.call('POST', path, { body: { driver_id: 'nobody' } })).status).toBe(422);
    const r = await t.call('POST', path, { body: { driver_id: w.driver_id } });
    expect(r.status).toBe(200);
    expect(await driverOf(0)).toMatchObject({ driver_id: w.driver_id, association: 'linkage' });
    const list = (await t.get('/vehicles/driver-linkages')).json().data;
    expect(list).toEqual([
      expect.objectContaining({ registration: v0().registration, driver_id: w.driver_id }),
    ]);
    t.advance(3_600_000);
    expect((await driverOf(0))?.driver_id).toBe(w.driver_id); // a linkage does not end at ignition OFF
    expect((await t.call('DELETE', path)).status).toBe(200);
    expect(await driverOf(0)).toMatchObject({ association: 'default' });
    expect((await t.call('DELETE', path)).status).toBe(404);
    expect(
      (await t.call('POST', '/vehicles/NOPE/driver-linkage', { body: { driver_id: w.driver_id } })).status,
    ).toBe(404);
  });

  it('nests location, driver, fuel and electric; odometer_in_km=true gives kilometres', async () => {
    t.setNow(t.fleet.endMs + 3_600_000);
    const s = await statusOf(0);
    expect(s.location).toMatchObject({
      latitude: expect.any(Number),
      longitude: expect.any(Number),
      gps_fix_type: 3,
    });
    expect(s.fuel).toMatchObject({ level: expect.any(Number), total_consumed: expect.any(Number) });
    expect(s.electric).toBeNull();
    const km = await statusOf(0, { odometer_in_km: 'true' });
    expect(km.odometer as number).toBeCloseTo((s.odometer as number) / 1000, 1);
    const ev = await statusOf(3);
    expect(ev.engine_type).toBe('Electric');
    expect(ev.electric).toMatchObject({
      battery_percentage_left: expect.any(Number),
      charging_status: expect.stringMatching(/^(PLUGGED_CHARGING|PLUGGED_NOT_CHARGING|UNPLUGGED)$/),
    });
    const pct = (ev.electric as { battery_percentage_left: number }).battery_percentage_left;
    expect(pct).toBeGreaterThanOrEqual(5);
    expect(pct).toBeLessThanOrEqual(90);
    const evs = (await t.get('/vehicles/status', { 'filter[engine_type]': 'elec' })).json().data;
    expect(evs.map((x) => x.vehicle_id)).toEqual([t.fleet.vehicles[3]!.vehicle_id]);
    expect((await t.get('/vehicles/status', { 'filter[ignition]': 'maybe' })).status).toBe(400);
  });
});
