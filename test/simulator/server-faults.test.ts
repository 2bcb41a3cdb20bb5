import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim({ startAt: Date.parse('2026-04-21T03:00:00Z') });
});
afterAll(() => t.sim.close());

describe('fault injection', () => {
  for (const [variant, check] of [
    [
      'normal',
      (h: Record<string, unknown>) => {
        expect(h['x-ratelimit-retry-after-seconds']).toBe('3');
        expect(h['x-ratelimit-retry-at']).toBe(String(Date.parse('2026-04-21T03:00:03Z') / 1000));
      },
    ],
    ['zero', (h: Record<string, unknown>) => expect(h['x-ratelimit-retry-after-seconds']).toBe('0')],
    [
      'missing',
      (h: Record<string, unknown>) => {
        expect(h['x-ratelimit-retry-at']).toBeUndefined();
        expect(h['x-ratelimit-retry-after-seconds']).toBeUndefined();
      },
    ],
    [
      'absurd',
      (h: Record<string, unknown>) => {
        expect(Number(h['x-ratelimit-retry-after-seconds'])).toBeGreaterThan(86_400);
        expect(Number.isNaN(Number(h['x-ratelimit-retry-at']))).toBe(true);
      },
    ],
  ] as const) {
    it(`answers 429 every N requests with the ${variant} header variant, counted apart from genuine 429s`, async () => {
      t.sim.setFaults({ rateLimitEvery: 3, rateLimitHeaders: variant, rateLimitRetryAfterS: 3 });
      t.sim.resetStats();
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await t.get('/geofences');
        statuses.push(r.status);
        if (r.status === 429) {
          expect(r.json().error.code).toBe(429);
          check(r.headers);
        }
      }
      expect(statuses).toEqual([200, 200, 429, 200, 200, 429]);
      const s = t.sim.stats();
      expect(s.faults.rate_limit).toBe(2);
      expect(s.rateLimited.default).toBe(0);
    });
  }

  it('limits injected 429s to one bucket when asked', async () => {
    t.sim.setFaults({ rateLimitEvery: 1, rateLimitBucket: 'vehicles_status' });
    expect((await t.get('/geofences')).status).toBe(200);
    expect((await t.get('/vehicles/status')).status).toBe(429);
  });

  it('answers a 5xx with the error envelope every N requests', async () => {
    t.sim.setFaults({ serverErrorEvery: 2, serverErrorStatus: 502 });
    expect((await t.get('/geofences')).status).toBe(200);
    const r = await t.get('/geofences');
    expect(r.status).toBe(502);
    expect(r.json().error.code).toBe(502);
  });

  it('sends a truncated JSON body that a client cannot parse', async () => {
    t.sim.setFaults({ truncateEvery: 1 });
    const r = await t.get('/geofences');
    expect(r.status).toBe(200);
    expect(r.text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('sends HTML instead of JSON', async () => {
    t.sim.setFaults({ nonJsonEvery: 1 });
    const r = await t.get('/geofences');
    expect(r.headers['content-type']).toContain('text/html');
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('resets the connection', async () => {
    t.sim.setFaults({ resetEvery: 1 });
    await expect(t.get('/geofences')).rejects.toThrow();
    t.sim.setFaults({});
    expect((await t.get('/geofences')).status).toBe(200);
  });

  it('hangs without answering (the client times out)', async () => {
    t.sim.setFaults({ hangEvery: 1 });
    const auth = `Basic ${Buffer.from('demo:demo-main').toString('base64')}`;
    await expect(
      request(`${t.sim.baseUrl}/geofences`, { headers: { authorization: auth }, headersTimeout: 300 }),
    ).rejects.toThrow();
    expect(t.sim.stats().faults.hang).toBeGreaterThan(0);
    t.sim.setFaults({});
  });

  it('renames or removes a field in a chosen payload kind only', async () => {
    t.sim.setFaults({ fieldFault: { kind: 'geofence', field: 'is_toll', renameTo: 'isToll' } });
    const g = (await t.get('/geofences')).json().data[0]!;
    expect(g).not.toHaveProperty('is_toll');
    expect(g).toHaveProperty('isToll');
    const q = { start_timestamp: '2026-04-02 00:00:00', end_timestamp: '2026-04-02 23:59:59' };
    t.sim.setFaults({ fieldFault: { kind: 'trip', field: 'trip_id' } });
    const trip = (await t.get('/trips', q)).json().data[0]!;
    expect(trip).not.toHaveProperty('trip_id');
    expect((await t.get('/geofences')).json().data[0]).toHaveProperty('is_toll');
    t.sim.setFaults({});
  });

  it('adds latency without changing the answer', async () => {
    t.sim.setFaults({ latencyMs: 20 });
    expect((await t.get('/geofences')).status).toBe(200);
    t.sim.setFaults({});
  });

  it('shows stats for humans without auth', async () => {
    const r = await request(`${t.sim.url}/__sim/stats`);
    const s = (await r.body.json()) as { total: number; faults: Record<string, number> };
    expect(r.statusCode).toBe(200);
    expect(s.total).toBeGreaterThan(0);
    expect(s.faults).toHaveProperty('truncate');
  });
});
