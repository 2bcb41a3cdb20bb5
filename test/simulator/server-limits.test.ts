import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, bucketFor, type BucketName } from '../../src/simulator/ratelimit.ts';
import { enc, startTestSim, type TestSim, type Who } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim({ startAt: Date.parse('2026-04-21T03:00:00.250Z') });
});
afterAll(() => t.sim.close());

const day = { start_timestamp: '2026-04-02 00:00:00', end_timestamp: '2026-04-02 23:59:59' };

/** One request that draws on `bucket` (any status but 429 counts). */
function hit(bucket: BucketName, who: Who = 'main') {
  const reg = enc(t.fleet.vehicles[0]!.registration);
  const body = { registrations: [t.fleet.vehicles[0]!.registration], ...day };
  switch (bucket) {
    case 'default':
      return t.get('/geofences/00000000-0000-0000-0000-000000000000', undefined, who);
    case 'fuel_consumed_post':
      return t.call('POST', '/fuel/consumed', { body, who });
    case 'fuel_level_post':
      return t.call('POST', '/fuel/level', { body, who });
    case 'ev_consumption_post':
      return t.call('POST', '/vehicles/ev-consumption', { body, who });
    case 'ev_range_post':
      return t.call('POST', '/vehicles/range', { body, who });
    case 'ev_soc_post':
      return t.call('POST', '/vehicles/soc', { body, who });
    case 'vehicles_vext':
      return t.get('/vehicles/vext', undefined, who);
    case 'vehicles_status':
      return t.get('/vehicles/status', undefined, who);
    case 'vehicles_events':
      return t.get('/vehicles/events', day, who);
    case 'vehicle_events':
      return t.get(`/vehicles/${reg}/events`, day, who);
    case 'vehicle_idling':
      return t.get(`/vehicles/${reg}/events/idling`, undefined, who);
    case 'vision_status':
      return t.get('/vision/status', undefined, who);
  }
}

describe('rate-limit buckets', () => {
  it('maps each endpoint of the Limits table to its own bucket', () => {
    expect(bucketFor('POST', '/rest/fuel/consumed')).toBe('fuel_consumed_post');
    expect(bucketFor('GET', '/rest/fuel/consumed/abc')).toBe('default');
    expect(bucketFor('GET', '/vehicles/ab%20123%20gp/events/idling')).toBe('vehicle_idling');
    expect(bucketFor('GET', '/vehicles/ab%20123%20gp/odometer?x=1')).toBe('default');
    expect(Object.fromEntries(BUCKETS.map((b) => [b.name, b.limit]))).toEqual({
      default: 1000,
      fuel_consumed_post: 10,
      fuel_level_post: 10,
      ev_consumption_post: 10,
      ev_range_post: 10,
      ev_soc_post: 10,
      vehicles_vext: 10,
      vehicles_status: 60,
      vehicles_events: 60,
      vehicle_events: 200,
      vehicle_idling: 200,
      vision_status: 6,
    });
  });

  for (const b of BUCKETS) {
    it(`${b.endpoint}: ${b.limit} per window, then 429 with retry headers; others unaffected; recovers`, async () => {
      t.advance(61_000); // a fresh window for every bucket
      t.sim.resetStats();
      const first = t.now();
      // Half from the subuser: the account's buckets are shared.
      for (let i = 0; i < b.limit; i++) {
        const r = await hit(b.name, i % 2 ? 'sub' : 'main');
        expect(r.status, `request ${i + 1}`).not.toBe(429);
        if (i === 0) t.advance(5_000); // the rest 5 s later: the first leaves the window first
      }
      const over = await hit(b.name, 'sub');
      expect(over.status).toBe(429);
      expect(over.json().error).toMatchObject({ code: 429 });
      const retryAt = Number(over.headers['x-ratelimit-retry-at']);
      const after = Number(over.headers['x-ratelimit-retry-after-seconds']);
      expect(retryAt).toBe(Math.ceil((first + 60_000) / 1000));
      expect(after).toBe(Math.ceil((first + 60_000 - t.now()) / 1000));
      const other: BucketName = b.name === 'vision_status' ? 'vehicles_status' : 'vision_status';
      expect((await hit(other)).status).not.toBe(429);
      // A rejected request does not count: once the first request leaves the window, one more fits.
      t.setNow(first + 60_000);
      expect((await hit(b.name)).status).not.toBe(429);
      expect((await hit(b.name)).status).toBe(429);
      const s = t.sim.stats();
      expect(s.rateLimited[b.name]).toBe(2);
      expect(s.requests[b.name]).toBe(b.limit + 3);
      expect(s.faults.rate_limit).toBe(0);
    });
  }

  it('does not count 401s and can be switched off', async () => {
    const off = await startTestSim({ fleet: t.fleet, enforceLimits: false, limits: { vision_status: 1 } });
    try {
      for (let i = 0; i < 5; i++) expect((await off.get('/vision/status')).status).toBe(200);
      expect((await off.get('/vision/status', undefined, 'bad')).status).toBe(401);
      expect(off.sim.stats().unauthorized).toBe(1);
    } finally {
      await off.sim.close();
    }
  });

  it('honours a short window and per-bucket overrides', async () => {
    const quick = await startTestSim({ fleet: t.fleet, windowMs: 2_000, limits: { vehicles_status: 2 } });
    try {
      expect((await quick.get('/vehicles/status')).status).toBe(200);
      expect((await quick.get('/vehicles/status')).status).toBe(200);
      const r = await quick.get('/vehicles/status');
      expect(r.status).toBe(429);
      expect(r.headers['x-ratelimit-retry-after-seconds']).toBe('2');
      quick.advance(2_000);
      expect((await quick.get('/vehicles/status')).status).toBe(200);
    } finally {
      await quick.sim.close();
    }
  });
});
