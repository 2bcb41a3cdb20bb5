/**
 * What stops the client, against real node:http servers on a fake clock: the circuit breaker
 * (failures in a row, or time with nothing but failures; a success ends the streak), the stop
 * reaching waiting requests, and the 429 budget that counts only while the bucket serves nobody.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetClientOptions } from '../../src/api/client.ts';
import { defaultRetryPolicy, fullJitterMs, rateLimitGivesUp } from '../../src/api/retry.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { json, list, rejection, scriptedClient, type Handler, type ScriptedClient } from '../helpers/api.ts';

let h: ScriptedClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup(handler: Handler, extra: Partial<FleetClientOptions> = {}) {
  h = await scriptedClient(handler, extra);
  return h;
}

const down = (res: ServerResponse) => json(res, 503, { error: { code: 503, message: 'down' } });
const ok = (res: ServerResponse) => json(res, 200, list([{ vehicle_id: 1, registration: 'X1' }]));
const fail = rejection;

describe('the circuit breaker', () => {
  it('opens at the Nth failure in a row: E_API_DOWN, and nothing more is sent until rearmed', async () => {
    const { srv, client } = await setup((_r, res) => down(res), { maxRetries: 50, breakerFailures: 5 });
    const e = await fail(client.listVehicles());
    expect(e?.code).toBe('E_API_DOWN');
    expect(e?.message).toMatch(
      /answered nothing but .* for 5 requests in a row \(FLEETSYNC_BREAKER_FAILURES=5\)/,
    );
    expect(e?.message).toMatch(/last: GET \/vehicles: HTTP 503 down/);
    expect(srv.seen).toHaveLength(5);
    expect(await fail(client.listGeofences())).toBe(e);
    expect(srv.seen).toHaveLength(5);
    client.rearm();
    expect((await fail(client.listGeofences()))?.code).toBe('E_API_DOWN');
    expect(srv.seen).toHaveLength(10);
  });

  it('opens after FLEETSYNC_BREAKER_MS of nothing but failures, however few', async () => {
    const { srv, client } = await setup((_r, res) => down(res), {
      maxRetries: 1000,
      breakerFailures: 10_000,
      breakerMs: 120_000,
    });
    const e = await fail(client.listVehicles());
    expect(e?.code).toBe('E_API_DOWN');
    expect(e?.message).toMatch(/for 1[2-4]\d s \(FLEETSYNC_BREAKER_MS=120000\)/);
    const span = srv.seen.at(-1)!.t - srv.seen[0]!.t;
    expect(span).toBeGreaterThanOrEqual(120_000);
    expect(span).toBeLessThan(120_000 + 30_000); // within one backoff of the bound
    expect(srv.seen.length).toBeLessThan(15);
  });

  it('an answer ends the streak: failures between successes never open it', async () => {
    const { srv, client } = await setup((_r, res, n) => (n % 3 === 0 ? ok(res) : down(res)), {
      breakerFailures: 3,
    });
    for (let i = 0; i < 10; i++) expect(await client.listVehicles()).toHaveLength(1);
    expect(srv.seen).toHaveLength(30);
  });

  it('requests waiting for a retry or for the bucket end with the stop; none of them is sent', async () => {
    const { srv, client } = await setup((_r, res) => down(res), {
      maxRetries: 50,
      breakerFailures: 8,
      concurrency: 4,
    });
    const calls = Array.from({ length: 12 }, () => fail(client.listVehicles()));
    const errors = await Promise.all(calls);
    expect(errors.every((e) => isFleetsyncError(e, 'E_API_DOWN'))).toBe(true);
    // The 8th failure opened it; at most the 3 others on the wire then were answered after it.
    expect(srv.seen.length).toBeGreaterThanOrEqual(8);
    expect(srv.seen.length).toBeLessThanOrEqual(8 + 3);
  });
});

describe('refused credentials', () => {
  it('a 401 stops the client at once, and requests already waiting are not sent', async () => {
    const { srv, client } = await setup(
      (_r, res, n) => (n === 1 ? json(res, 401, { error: { message: 'Unauthenticated' } }) : ok(res)),
      { concurrency: 1 },
    );
    const errors = await Promise.all(Array.from({ length: 5 }, () => fail(client.listVehicles())));
    expect(errors.map((e) => e?.code)).toEqual(['E_AUTH', 'E_AUTH', 'E_AUTH', 'E_AUTH', 'E_AUTH']);
    expect(errors[0]?.message).toMatch(/^HTTP 401 on GET \/vehicles: Unauthenticated \(check FLEET_USERNAME/);
    expect(srv.seen).toHaveLength(1);
  });

  it('a 403 on one endpoint refuses that endpoint only: one request, the others still answer', async () => {
    const { srv, client } = await setup(
      (r, res) =>
        r.path === '/rest/drivers' ? json(res, 403, { error: { message: 'Forbidden' } }) : ok(res),
      { concurrency: 4 },
    );
    expect(await client.listVehicles()).toHaveLength(1);
    const errors = await Promise.all(Array.from({ length: 5 }, () => fail(client.listDrivers())));
    expect(errors.map((e) => e?.code)).toEqual(Array(5).fill('E_NOT_PERMITTED'));
    expect(errors[0]?.message).toMatch(
      /^GET \/drivers: HTTP 403 Forbidden: not permitted for these credentials/,
    );
    expect(srv.seen.filter((s) => s.path === '/rest/drivers')).toHaveLength(1);
    expect(await client.listVehicles()).toHaveLength(1);
    expect(client.access().refused).toEqual([
      expect.objectContaining({ endpoint: 'GET /drivers', state: 'not_permitted', status: 403 }),
    ]);
  });

  it('403 on three endpoints before anything answered: the credentials read nothing, E_AUTH', async () => {
    const { srv, client } = await setup((_r, res) => json(res, 403, { error: { message: 'Forbidden' } }));
    expect((await fail(client.listVehicles()))?.code).toBe('E_NOT_PERMITTED');
    expect((await fail(client.listGeofences()))?.code).toBe('E_NOT_PERMITTED');
    const e = await fail(client.listDrivers());
    expect(e?.code).toBe('E_AUTH');
    expect(e?.message).toMatch(
      /HTTP 403 on GET \/vehicles, GET \/geofences, GET \/drivers and nothing answered/,
    );
    expect((await fail(client.listCarpoolVehicles()))?.code).toBe('E_AUTH');
    expect(srv.seen).toHaveLength(3);
  });
});

describe('429 retries', () => {
  it('full jitter: anywhere in [0, base × 2^attempt], capped', () => {
    expect(fullJitterMs(0, 2000, 60_000, () => 0)).toBe(0);
    expect(fullJitterMs(0, 2000, 60_000, () => 1)).toBe(2000);
    expect(fullJitterMs(3, 2000, 60_000, () => 0.5)).toBe(8000);
    expect(fullJitterMs(10, 2000, 60_000, () => 1)).toBe(60_000);
  });

  it('the budget runs out only while the bucket serves nobody (or at 4 times the budget)', () => {
    const p = defaultRetryPolicy(60_000); // budget 8
    expect(rateLimitGivesUp(8, false, p)).toBe(false);
    expect(rateLimitGivesUp(9, false, p)).toBe(true);
    expect(rateLimitGivesUp(9, true, p)).toBe(false);
    expect(rateLimitGivesUp(32, true, p)).toBe(false);
    expect(rateLimitGivesUp(33, true, p)).toBe(true);
  });

  it('a request drawing 429 again and again while others are served goes on past the budget', async () => {
    let geofence429 = 0;
    const { srv, client, clock } = await setup(
      (r, res) => {
        if (r.path === '/rest/geofences' && geofence429 < 6) {
          geofence429++;
          return json(
            res,
            429,
            { error: { message: 'Too Many Requests' } },
            { 'X-RateLimit-Retry-After-Seconds': '1' },
          );
        }
        if (r.path === '/rest/geofences')
          return json(res, 200, list([{ geofence_id: 'g', name: 'G', is_toll: true }]));
        ok(res);
      },
      { maxRateLimitRetries: 2 },
    );
    let done = false;
    const g = client.listGeofences().finally(() => (done = true));
    let served = 0;
    // Others of the bucket are served between its 429s (every 5 s on the fake clock).
    while (!done) {
      await clock.sleep(5000);
      await client.listVehicles();
      served++;
    }
    expect(await g).toHaveLength(1);
    expect(served).toBeGreaterThan(6);
    expect(geofence429).toBe(6);
    expect(srv.seen.filter((s) => s.path === '/rest/geofences')).toHaveLength(7);
  });
});
