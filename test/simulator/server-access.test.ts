/**
 * The simulator as an account that differs (issue 23, item 6): a restricted subuser sees only its
 * vehicles (listings and paths; another vehicle's path answers 404) and is refused the
 * main-account-only reads (403) while the main account reads everything; a missing module answers
 * 404 to both; `setAccess` switches between runs; `stats().endpoints` counts per endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_ACCOUNT_ONLY_READS } from '../../src/simulator/server.ts';
import { enc, startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
let mine: number[];
beforeAll(async () => {
  t = await startTestSim();
  mine = t.fleet.vehicles.slice(0, 2).map((v) => v.vehicle_id);
});
afterAll(() => t?.sim.close());

const ids = (a: { json: <T>() => T }) =>
  a.json<{ data: { vehicle_id: number }[] }>().data.map((v) => v.vehicle_id);
const day = { start_timestamp: '2026-04-10 00:00:00', end_timestamp: '2026-04-10 23:59:59' };

describe('access', () => {
  it('a restricted subuser sees its vehicles and is refused the main-account-only reads', async () => {
    t.sim.setAccess({ subuser: { vehicleIds: mine, forbidden: MAIN_ACCOUNT_ONLY_READS } });
    expect(ids(await t.get('/vehicles', {}, 'sub'))).toEqual(mine);
    expect(ids(await t.get('/vehicles', {}, 'main'))).toEqual(t.fleet.vehicles.map((v) => v.vehicle_id));
    const trips = (await t.get('/trips', day, 'sub')).json<{ data: { vehicle_id: number }[] }>().data;
    expect(trips.length).toBeGreaterThan(0);
    expect(trips.every((x) => mine.includes(x.vehicle_id))).toBe(true);
    const other = t.fleet.vehicles[3]!.registration;
    expect((await t.get(`/vehicles/${enc(other)}/odometer`, day, 'sub')).status).toBe(404);
    expect((await t.get(`/vehicles/${enc(other)}/odometer`, day, 'main')).status).toBe(200);
    for (const e of MAIN_ACCOUNT_ONLY_READS) {
      const path = e.slice('GET '.length);
      expect((await t.get(path, {}, 'sub')).status, e).toBe(403);
      expect((await t.get(path, {}, 'main')).status, e).toBe(200);
    }
  });

  it('a missing module answers 404 to both, until it is switched back on; requests counted per endpoint', async () => {
    t.sim.setAccess({ missing: ['GET /vehicles/activity'] });
    t.sim.resetStats();
    const q = { 'filter[date]': '2026-04-10' };
    expect((await t.get('/vehicles/activity', q, 'main')).status).toBe(404);
    expect((await t.get('/vehicles/activity', q, 'sub')).status).toBe(404);
    t.sim.setAccess({});
    expect((await t.get('/vehicles/activity', q, 'main')).status).toBe(200);
    expect(t.sim.stats().endpoints).toEqual({ 'GET /vehicles/activity': 3 });
  });
});
