import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { OPEN_BOOKING_STATUSES } from '../../src/simulator/routes/carpool.ts';
import { END_DAY, ZONE, startTestSim, type One, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
const sims: TestSim[] = [];
beforeEach(async () => {
  // A fresh fleet per test: PATCH/DELETE change it. 14 vehicles include the carpool vehicles.
  const fleet = generateFleet({ seed: 7, vehicles: 14, days: 40, timezone: ZONE, endDay: END_DAY });
  t = await startTestSim({ fleet });
  sims.push(t);
});
afterAll(async () => {
  for (const s of sims) await s.sim.close();
});

const patch = (id: string, body: unknown, who: 'main' | 'sub' = 'main') =>
  t.call('PATCH', `/carpool/drivers/${id}`, { body, who });
const active = () => t.fleet.drivers.filter((d) => !d.deactivated);
const listed = async () => (await t.get('/carpool/drivers', { limit: '500' })).json().data;

describe('PATCH /carpool/drivers/{driver_id}', () => {
  it('changes only the fields sent, replaces lists whole, answers 200 with the driver', async () => {
    const d = active().find((x) => x.license_type_ids.length > 0 && x.can_book_carpool)!;
    const before = { ...d };
    const r = await patch(d.driver_id, { license_type_ids: [7, 8] });
    expect(r.status).toBe(200);
    const got = r.json<One>().data;
    expect(got.license_type_ids).toEqual([7, 8]);
    expect(got.special_licenses).toEqual(before.special_licenses);
    expect(got.can_book_carpool).toBe(before.can_book_carpool);
    expect(got.allow_system_auto_booking).toBe(before.allow_system_auto_booking);
    expect((await listed()).find((x) => x.driver_id === d.driver_id)).toEqual(got);
  });

  it('rejects an empty body with 422', async () => {
    const r = await patch(active()[0]!.driver_id, {});
    expect(r.status).toBe(422);
  });

  it('answers 422 and changes nothing when all three flags would be false', async () => {
    const d = active().find(
      (x) => x.can_book_carpool && x.allow_system_auto_booking !== x.allow_specific_vehicle_booking,
    )!;
    const before = await listed();
    const r = await patch(d.driver_id, {
      can_book_carpool: false,
      allow_system_auto_booking: false,
      allow_specific_vehicle_booking: false,
      special_licenses: ['X'],
    });
    expect(r.status).toBe(422);
    expect(r.json().error.code).toBe(422);
    expect(await listed()).toEqual(before);
    // Leaving the other flag true is fine.
    expect((await patch(d.driver_id, { can_book_carpool: false })).status).toBe(200);
  });

  it('switches the account setting on when a flag is set true, never off when set false', async () => {
    const d = active().find((x) => x.can_book_carpool && x.allow_system_auto_booking)!;
    t.fleet.carpoolSettings.drivers_can_book_specific_vehicles = false;
    const rulesBefore = (await t.get('/carpool/rules')).text;
    expect((await patch(d.driver_id, { allow_specific_vehicle_booking: true })).status).toBe(200);
    expect(t.fleet.carpoolSettings.drivers_can_book_specific_vehicles).toBe(true);
    expect((await patch(d.driver_id, { allow_specific_vehicle_booking: false })).status).toBe(200);
    expect(t.fleet.carpoolSettings.drivers_can_book_specific_vehicles).toBe(true);
    expect((await t.get('/carpool/rules')).text).toBe(rulesBefore); // settings are not rules
  });

  it('answers 404 for a deactivated or unknown driver and writes nothing', async () => {
    const gone = t.fleet.drivers.find((x) => x.deactivated)!;
    const before = { ...gone };
    expect((await patch(gone.driver_id, { license_type_ids: [9] })).status).toBe(404);
    expect(gone).toEqual(before);
    expect((await patch('00000000-0000-0000-0000-000000000000', { can_book_carpool: true })).status).toBe(
      404,
    );
    expect((await listed()).some((x) => x.driver_id === gone.driver_id)).toBe(false);
  });

  it('answers 403 to the subuser', async () => {
    const d = active()[0]!;
    expect((await patch(d.driver_id, { license_type_ids: [1] }, 'sub')).status).toBe(403);
  });
});

describe('DELETE /carpool/drivers/{driver_id}', () => {
  const openDriver = () =>
    t.fleet.bookings.find(
      (b) => b.created_ms <= t.now() && OPEN_BOOKING_STATUSES.has(t.fleet.bookingAt(b, t.now()).status),
    )!.driver_id;

  it('answers 409 while the driver has an open booking, 200 {"data":{}} otherwise', async () => {
    const busy = openDriver();
    const r = await t.call('DELETE', `/carpool/drivers/${busy}`);
    expect(r.status).toBe(409);
    expect(r.json<{ data: null; error: { code: number } }>()).toMatchObject({
      data: null,
      error: { code: 409 },
    });
    const free = active().find(
      (d) =>
        !t.fleet.bookings.some(
          (b) =>
            b.driver_id === d.driver_id && OPEN_BOOKING_STATUSES.has(t.fleet.bookingAt(b, t.now()).status),
        ),
    )!;
    const ok = await t.call('DELETE', `/carpool/drivers/${free.driver_id}`);
    expect(ok.status).toBe(200);
    expect(ok.json().data).toEqual({});
    expect((await listed()).some((x) => x.driver_id === free.driver_id)).toBe(false);
    expect((await patch(free.driver_id, { can_book_carpool: true })).status).toBe(404);
  });

  it('accepts a deactivated driver, refuses the subuser, 404 for unknown', async () => {
    const gone = t.fleet.drivers.find((x) => x.deactivated)!;
    expect((await t.call('DELETE', `/carpool/drivers/${gone.driver_id}`, { who: 'sub' })).status).toBe(403);
    expect((await t.call('DELETE', `/carpool/drivers/${gone.driver_id}`)).status).toBe(200);
    expect((await t.call('DELETE', `/carpool/drivers/${gone.driver_id}`)).status).toBe(404);
  });
});

describe('carpool reads and rules', () => {
  it('PATCH /carpool/rules/{id} updates the value and leaves the driver settings alone', async () => {
    const settings = { ...t.fleet.carpoolSettings };
    const rule = t.fleet.bookingRules[0]!;
    const r = await t.call('PATCH', `/carpool/rules/${rule.booking_rule_id}`, { body: { value: 12 } });
    expect(r.status).toBe(200);
    expect(r.json<One>().data).toMatchObject({ booking_rule_id: rule.booking_rule_id, value: 12 });
    expect((await t.get('/carpool/rules')).json().data[0]!.value).toBe(12);
    expect(t.fleet.carpoolSettings).toEqual(settings);
    expect((await t.call('PATCH', `/carpool/rules/${rule.booking_rule_id}`, { body: {} })).status).toBe(422);
    expect((await t.call('PATCH', '/carpool/rules/999999', { body: { value: 1 } })).status).toBe(404);
  });

  it('lists bookings overlapping the range as of now, with setup_status on vehicles and drivers', async () => {
    const q = {
      'filter[start_timestamp]': '2026-04-01 00:00:00',
      'filter[end_timestamp]': '2026-04-30 23:59:59',
      limit: '500',
    };
    const r = (await t.get('/carpool/bookings', q)).json();
    expect(r.data.length).toBeGreaterThan(0);
    for (const b of r.data)
      expect(Date.parse((b.created_ts as string).replace(' ', 'T') + ':00')).toBeLessThanOrEqual(t.now());
    const over = await t.get('/carpool/bookings', { ...q, 'filter[end_timestamp]': '2026-05-02 00:00:00' });
    expect(over.status).toBe(422);
    const one = r.data[0]!;
    expect((await t.get(`/carpool/bookings/${one.booking_id}`)).json<One>().data).toEqual(one);
    const vehicles = (await t.get('/carpool/vehicles')).json().data;
    expect(vehicles.length).toBeGreaterThan(0);
    for (const v of vehicles) expect(['READY', 'SETUP_INCOMPLETE']).toContain(v.setup_status);
    for (const d of await listed()) expect(['ACTIVE_CARPOOL', 'SETUP_INCOMPLETE']).toContain(d.setup_status);
  });
});
