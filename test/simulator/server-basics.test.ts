import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLocal, parseWireTimestamp } from '../../src/time.ts';
import { enc, smallFleet, startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const day = (d: string) => ({ start_timestamp: `${d} 00:00:00`, end_timestamp: `${d} 23:59:59` });

describe('simulated Fleet API: auth', () => {
  it('answers 401 with the error envelope without or with bad credentials', async () => {
    for (const who of ['none', 'bad'] as const) {
      const r = await t.get('/vehicles', undefined, who);
      expect(r.status).toBe(401);
      expect(r.json().error.code).toBe(401);
      expect(typeof r.json().error.message).toBe('string');
    }
  });
  it('accepts the main account and the subuser (same username, own password)', async () => {
    expect((await t.get('/vehicles', undefined, 'main')).status).toBe(200);
    expect((await t.get('/vehicles', undefined, 'sub')).status).toBe(200);
  });
});

describe('simulated Fleet API: pagination', () => {
  it('defaults to 10 per page, clamps 500 and pages cover every item once', async () => {
    const q = {
      'filter[enter_timestamp]': '2026-04-01 00:00:00',
      'filter[exit_timestamp]': '2026-04-01 23:59:59',
    };
    const first = (await t.get('/geofences/visits', q)).json();
    expect(first.meta.per_page).toBe(10);
    expect(first.data).toHaveLength(10);
    expect(first.meta).toMatchObject({ from: 1, to: 10, current_page: 1 });
    const total = first.meta.total as number;
    expect(total).toBeGreaterThan(20);
    expect(first.meta.last_page).toBe(Math.ceil(total / 10));
    const big = (await t.get('/geofences/visits', { ...q, limit: '9999' })).json();
    expect(big.meta.per_page).toBe(500);
    expect(big.data).toHaveLength(total);
    const seen: unknown[] = [];
    for (let page = 1, last = 1; page <= last; page++) {
      const r = (await t.get('/geofences/visits', { ...q, limit: '7', page: String(page) })).json();
      expect(r.meta.current_page).toBe(page);
      last = r.meta.last_page as number;
      seen.push(...r.data);
    }
    expect(seen).toEqual(big.data);
  });
  it('carries an extra meta key on fuel fills', async () => {
    const reg = t.fleet.vehicles[5]!.registration;
    const r = (await t.get(`/fuel/fills/${enc(reg)}`, day('2026-04-01'))).json();
    expect(typeof r.meta.calibrated).toBe('boolean');
  });
});

describe('simulated Fleet API: request windows', () => {
  const reg = () => enc(t.fleet.vehicles[0]!.registration);
  it('accepts 31 days and rejects 31 days + 1 s (422; odometer 400), naming the parameter', async () => {
    const ok = { start_timestamp: '2026-03-12 00:00:00', end_timestamp: '2026-04-11 23:59:59' };
    const over = { start_timestamp: '2026-03-12 00:00:00', end_timestamp: '2026-04-12 00:00:00' };
    expect((await t.get('/trips', ok)).status).toBe(200);
    expect((await t.get(`/vehicles/${reg()}/odometer`, ok)).status).toBe(200);
    expect((await t.get(`/fuel/consumed/${reg()}`, ok)).status).toBe(200);
    const r = await t.get('/trips', over);
    expect(r.status).toBe(422);
    expect(r.json().error.message).toContain('end_timestamp');
    expect((await t.get(`/trips/${reg()}`, over)).status).toBe(422);
    expect((await t.get(`/fuel/consumed/${reg()}`, over)).status).toBe(422);
    expect((await t.get(`/vehicles/${reg()}/odometer`, over)).status).toBe(400);
  });
  it('accepts 24 h and rejects 24 h + 1 s on visits, all-vehicle fills and bulk fuel', async () => {
    expect((await t.get('/fuel/fills', day('2026-04-05'))).status).toBe(200); // a 25-hour local day
    expect(
      (
        await t.get('/fuel/fills', {
          start_timestamp: '2026-04-05 00:00:00',
          end_timestamp: '2026-04-06 00:00:00',
        })
      ).status,
    ).toBe(422);
    const v = {
      'filter[enter_timestamp]': '2026-04-05 00:00:00',
      'filter[exit_timestamp]': '2026-04-06 00:00:00',
    };
    expect((await t.get('/geofences/visits', v)).status).toBe(422);
    const body = { registrations: [t.fleet.vehicles[0]!.registration], ...day('2026-04-05') };
    expect((await t.call('POST', '/fuel/consumed', { body })).status).toBe(200);
    const r = await t.call('POST', '/fuel/level', {
      body: { ...body, end_timestamp: '2026-04-06 00:00:00' },
    });
    expect(r.status).toBe(422);
  });
  it('rejects malformed and missing timestamps with the parameter named', async () => {
    const r = await t.get('/trips', {
      start_timestamp: '2026-04-01T00:00:00Z',
      end_timestamp: '2026-04-01 23:59:59',
    });
    expect(r.status).toBe(422);
    expect(r.json().error.message).toContain('start_timestamp');
    const m = await t.get(`/vehicles/${reg()}/odometer`, { start_timestamp: '2026-04-01 00:00:00' });
    expect(m.status).toBe(400);
    expect(m.json().error.message).toContain('end_timestamp');
    expect((await t.get('/geofences/visits')).json().error.message).toContain('filter[enter_timestamp]');
  });
  it('reads bounds as local wall time in the account zone, across the DST change', async () => {
    // 2026-04-05 is 25 hours long in Sydney; every trip listed for it overlaps local midnight-to-midnight.
    for (const d of ['2026-04-04', '2026-04-05', '2026-04-06']) {
      const r = (await t.get('/trips', { ...day(d), limit: '500' })).json();
      expect(r.data.length).toBeGreaterThan(0);
      for (const trip of r.data) {
        const s = parseWireTimestamp(trip.start_timestamp as string)!;
        const e = parseWireTimestamp(trip.end_timestamp as string)!;
        expect(formatLocal(s, 'Australia/Sydney') <= `${d} 23:59:59`).toBe(true);
        expect(formatLocal(e, 'Australia/Sydney') >= `${d} 00:00:00`).toBe(true);
      }
    }
  });
});

describe('simulated Fleet API: response formats', () => {
  it('sends short-offset wire timestamps, ISO-T on fuel level, and the offset changes with DST', async () => {
    const trips = (
      await t.get('/trips', {
        start_timestamp: '2026-04-03 00:00:00',
        end_timestamp: '2026-04-07 23:59:59',
        limit: '500',
      })
    ).json();
    const stamps = trips.data.map((x) => x.start_timestamp as string);
    for (const s of stamps) expect(s).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+1[01]$/);
    expect(stamps.some((s) => s.endsWith('+11'))).toBe(true);
    expect(stamps.some((s) => s.endsWith('+10'))).toBe(true);
    const reg = enc(t.fleet.vehicles[0]!.registration);
    const lvl = (await t.get(`/fuel/level/${reg}`, day('2026-04-02'))).json<{
      data: { start_period: { timestamp: string } };
    }>();
    expect(lvl.data.start_period.timestamp).toBe('2026-04-02T00:00:00+11:00');
  });
  it('answers {"data":{}} for fuel consumed of a vehicle without CAN data', async () => {
    const ev = t.fleet.vehicles.find((v) => !v.sensors.fuel_canbus_consumed)!;
    const r = await t.get(`/fuel/consumed/${enc(ev.registration)}`, day('2026-04-02'));
    expect(r.status).toBe(200);
    expect(r.json().data).toEqual({});
  });
  it('has vehicle_id as a string in POST /fuel/consumed items and as a number elsewhere', async () => {
    const reg = t.fleet.vehicles[0]!.registration;
    const bulk = (
      await t.call('POST', '/fuel/consumed', { body: { registrations: [reg], ...day('2026-04-02') } })
    ).json();
    expect(typeof bulk.data[0]!.vehicle_id).toBe('string');
    const one = (await t.get(`/fuel/consumed/${enc(reg)}`, day('2026-04-02'))).json<{
      data: { vehicle_id: unknown };
    }>();
    expect(typeof one.data.vehicle_id).toBe('number');
  });
  it('matches registrations exactly after percent-decoding (spaces, lower case)', async () => {
    const v = t.fleet.vehicles.find(
      (x) => /\s/.test(x.registration) && x.registration !== x.registration.toUpperCase(),
    )!;
    expect((await t.get(`/trips/${enc(v.registration)}`, day('2026-04-02'))).status).toBe(200);
    expect((await t.get(`/trips/${enc(v.registration.toUpperCase())}`, day('2026-04-02'))).status).toBe(404);
  });
});

describe('simulated Fleet API: determinism', () => {
  it('gives identical bodies for two servers on the same seed', async () => {
    const other = await startTestSim({ fleet: smallFleet(), startAt: t.now() });
    try {
      const reg = enc(t.fleet.vehicles[1]!.registration);
      for (const [path, q] of [
        [
          '/trips',
          { start_timestamp: '2026-03-20 00:00:00', end_timestamp: '2026-04-19 23:59:59', limit: '500' },
        ],
        [`/vehicles/${reg}/odometer`, day('2026-04-02')],
        ['/geofences/visits', { 'filter[enter_timestamp]': '2026-04-02 00:00:00', limit: '500' }],
        ['/vehicles/status', {}],
      ] as const) {
        const a = await t.get(path, q);
        const b = await other.get(path, q);
        expect(a.status).toBe(200);
        expect(b.text).toBe(a.text);
      }
    } finally {
      await other.sim.close();
    }
  });
});
