import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const day = { start_timestamp: '2026-04-14 00:00:00', end_timestamp: '2026-04-14 23:59:59', limit: '500' };
const dayMs = [Date.parse('2026-04-13T14:00:00Z'), Date.parse('2026-04-14T14:00:00Z')] as const; // Sydney +10

describe('vehicle events, idling, VEXT', () => {
  it('derives ignition events from the trips of the day, and caps the window at 24 h', async () => {
    const v = t.fleet.vehicles[0]!;
    const r = await t.get(`/vehicles/${enc(v.registration)}/events`, day);
    expect(r.status).toBe(200);
    const rows = r.json().data;
    const trips = t.fleet
      .tripsOf(v.vehicle_id)
      .filter((x) => x.start_ms >= dayMs[0] && x.start_ms < dayMs[1]);
    expect(rows.filter((e) => e.event_description === 'IGNITION_ON')).toHaveLength(trips.length);
    expect(rows[0]).toMatchObject({
      registration: v.registration,
      ignition: true,
      event_ts: expect.stringMatching(/\+1\d$/),
    });
    expect(rows.every((e) => typeof e.odometer === 'number' && typeof e.vext === 'number')).toBe(true);
    const over = { ...day, end_timestamp: '2026-04-15 00:00:00' };
    expect((await t.get(`/vehicles/${enc(v.registration)}/events`, over)).status).toBe(422);
    expect((await t.get('/vehicles/events', over)).status).toBe(400);
  });

  it('lists events of all vehicles, paginated', async () => {
    const all = (await t.get('/vehicles/events', day)).json();
    const ids = new Set(all.data.map((e) => e.vehicle_id));
    expect(ids.size).toBeGreaterThan(1);
    expect(all.meta.total).toBe(all.data.length);
  });

  it('lists idling events with a duration, 404 for an unknown vehicle', async () => {
    const v = t.fleet.vehicles[1]!;
    const r = await t.get(`/vehicles/${enc(v.registration)}/events/idling`, day);
    expect(r.status).toBe(200);
    const rows = r.json().data;
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows.every(
        (x) => (x.idle_duration_seconds as number) >= 0 && (x.idle_duration_seconds as number) < 300,
      ),
    ).toBe(true);
    expect((await t.get('/vehicles/NOPE/events/idling', day)).status).toBe(404);
  });

  it('gives the external voltage of every vehicle regardless of ignition', async () => {
    const rows = (await t.get('/vehicles/vext')).json().data;
    expect(rows).toHaveLength(t.fleet.vehicles.length);
    for (const x of rows) {
      expect(x.vext as number).toBeGreaterThan(12);
      expect(x.vext as number).toBeLessThan(14.2);
    }
  });
});

describe('EV endpoints', () => {
  const ev = () => t.fleet.vehicles[3]!;
  const body = (regs: string[]) => ({
    registrations: regs,
    start_timestamp: '2026-04-14 00:00:00',
    end_timestamp: '2026-04-14 23:59:59',
    limit: 500,
  });

  it('reports consumption, range and state of charge for electric vehicles only', async () => {
    const regs = [ev().registration, t.fleet.vehicles[0]!.registration];
    const c = (await t.call('POST', '/vehicles/ev-consumption', { body: body(regs) })).json().data;
    expect(c.map((x) => x.vehicle_id)).toEqual([ev().vehicle_id]);
    const km = t.fleet.truth.distanceM(ev().vehicle_id, dayMs[0], dayMs[1]) / 1000;
    expect(c[0]!.energy_consumed_kwh as number).toBeCloseTo(km * 0.16, 0);
    const soc = (await t.call('POST', '/vehicles/soc', { body: body(regs) })).json().data;
    expect(soc).toHaveLength(96); // every 15 minutes of the day
    expect(
      soc.every((x) => x.vehicle_id === ev().vehicle_id && (x.soc as number) >= 5 && (x.soc as number) <= 90),
    ).toBe(true);
    const range = (await t.call('POST', '/vehicles/range', { body: body(regs) })).json().data;
    expect(range[0]).toMatchObject({
      range_km: expect.any(Number),
      battery_percentage_left: expect.any(Number),
    });
    const only = (
      await t.call('POST', '/vehicles/soc', { body: body([t.fleet.vehicles[0]!.registration]) })
    ).json();
    expect(only.data).toEqual([]);
    expect((await t.call('POST', '/vehicles/soc', { body: body(['NOPE']) })).status).toBe(422);
  });

  it('charges while parked and discharges while driving', async () => {
    const all = t.fleet.tripsOf(ev().vehicle_id);
    // A long trip followed by at least 3 h parked.
    const trip = all
      .filter(
        (x, i) => x.distance_m > 20_000 && (all[i + 1]?.start_ms ?? Infinity) - x.end_ms > 3 * 3_600_000,
      )
      .at(-1)!;
    const at = async (ms: number) => {
      t.setNow(ms);
      const s = (await t.get('/vehicles/status', { 'filter[vehicle_id]': String(ev().vehicle_id) })).json()
        .data[0]!;
      return s.electric as { battery_percentage_left: number; charging_status: string };
    };
    const before = await at(trip.start_ms + 1000);
    const after = await at(trip.end_ms + 1000);
    expect(after.battery_percentage_left).toBeLessThan(before.battery_percentage_left);
    expect(after.charging_status).toBe('UNPLUGGED');
    // The status reports the battery as of the last event (a heartbeat every 30 min while parked).
    const later = await at(trip.end_ms + 90 * 60_000);
    expect(later.charging_status).toMatch(/^PLUGGED_/);
  });
});
