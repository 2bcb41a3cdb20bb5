/**
 * Failures in a scripted order against real node:http servers, on a fake clock: 429 pauses, 5xx,
 * resets, truncated bodies, timeouts, exhausted budgets, auth errors, and no secret anywhere.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FleetClientOptions, RequestMeter } from '../../src/api/client.ts';
import { localDayBounds } from '../../src/time.ts';
import {
  json,
  list,
  PASSWORD,
  rejection,
  scriptedClient,
  type Handler,
  type ScriptedClient,
} from '../helpers/api.ts';

let h: ScriptedClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup(handler: Handler, extra: Partial<FleetClientOptions> = {}) {
  h = await scriptedClient(handler, extra);
  return h;
}

const ok = (res: ServerResponse, path = '') =>
  json(
    res,
    200,
    list([
      path.endsWith('/vehicles')
        ? { vehicle_id: 1, registration: 'X1' }
        : { geofence_id: 'g-1', name: 'G', is_toll: false },
    ]),
  );
const busy = (res: ServerResponse) => json(res, 429, { error: { code: 429, message: 'Too Many Requests' } });

const fail = rejection;

describe('429', () => {
  it('pauses the whole bucket until Retry-At; other buckets go on; no request is wasted', async () => {
    let retryAtMs = 0;
    let s2seen429 = 0;
    const s2 = await setup((r, res) => {
      if (r.path === '/rest/vehicles' && s2seen429 === 0) {
        s2seen429++;
        retryAtMs = Math.ceil(r.t / 1000) * 1000 + 30_000;
        return json(
          res,
          429,
          { error: { code: 429, message: 'Too Many Requests' } },
          {
            'X-RateLimit-Retry-At': String(retryAtMs / 1000),
            'X-RateLimit-Retry-After-Seconds': '10',
          },
        );
      }
      if (r.path === '/rest/fuel/consumed') return json(res, 200, list([]));
      ok(res, r.path);
    });
    const meter: RequestMeter = { requests: 0, retries: 0, http429: 0 };
    s2.clock.hold();
    const t0 = s2.clock.now();
    const a = s2.client.listVehicles({ meter });
    await vi.waitFor(() => expect(s2.clock.pending()).toBe(1)); // A got its 429 and waits
    const b = s2.client.listGeofences(); // same (default) bucket
    const day = localDayBounds('2026-03-02', 'UTC');
    const c = await s2.client.getFuelConsumedBulk(['X1'], day.startMs, day.endMs); // another bucket
    expect(c).toEqual([]);
    const defaultSeen = () => s2.srv.seen.filter((s) => s.path !== '/rest/fuel/consumed');
    expect(defaultSeen()).toHaveLength(1); // B has not been sent while the bucket is paused
    expect(s2.clock.now()).toBe(t0);
    s2.clock.release();
    await Promise.all([a, b]);
    const seen = defaultSeen();
    // B goes when the pause ends; A, sent back by the 429, goes within full jitter after it
    // (random 0.5 of the first 429 backoff, a 30th of the window: 1 s).
    expect(seen.map((s) => s.path)).toEqual(['/rest/vehicles', '/rest/geofences', '/rest/vehicles']);
    expect(seen[1]!.t).toBe(retryAtMs);
    expect(seen[2]!.t).toBe(retryAtMs + 1000);
    // the meter also keeps what the paged read received: page 1 announced 1 record, 1 was kept
    expect(meter).toEqual({
      requests: 2,
      retries: 1,
      http429: 1,
      read: { announced: 1, kept: 1, duplicates: 0 },
    });
    const stats = s2.client.stats();
    expect(stats.http429ByBucket).toEqual({ default: 1 });
    expect(stats.waitedMsByBucket.default).toBeGreaterThanOrEqual(2 * 29_000); // A and B both waited
    expect(stats.waitedMsByBucket.fuel_consumed_bulk ?? 0).toBe(0);
  });

  it('handles zero, missing, non-numeric and absurd headers with bounded waits and one warning', async () => {
    const script: Record<string, string>[] = [
      { 'X-RateLimit-Retry-At': '0', 'X-RateLimit-Retry-After-Seconds': '0' },
      {},
      { 'X-RateLimit-Retry-At': 'soon', 'X-RateLimit-Retry-After-Seconds': '-5' },
      { 'X-RateLimit-Retry-After-Seconds': String(5 * 86_400) }, // five days
    ];
    const { srv, client, clock, log } = await setup((_r, res, n) => {
      const h = script[n - 1];
      if (h) return json(res, 429, { error: { code: 429, message: 'Too Many Requests' } }, h);
      ok(res);
    });
    expect(await client.listGeofences()).toHaveLength(1);
    expect(srv.seen).toHaveLength(5);
    const gaps = srv.seen.slice(1).map((s, i) => s.t - srv.seen[i]!.t);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(1000); // never a tight loop
      expect(g).toBeLessThanOrEqual(3 * 60_000 + 1000); // never days
    }
    expect(gaps[3]).toBe(3 * 60_000); // the absurd value is capped at three windows
    expect(gaps[1]! > gaps[0]!).toBe(true); // repeated 429s back off
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(3 * 60_000);
    expect(log.lines.filter((l) => l.includes('rate-limit headers unusable'))).toHaveLength(1);
    expect(client.stats().http429ByBucket.default).toBe(4);
  });

  it('gives up with E_RATE_LIMIT after the 429 budget', async () => {
    const { srv, client } = await setup((_r, res) => busy(res), { maxRateLimitRetries: 3 });
    const e = await fail(client.listGeofences());
    expect(e?.code).toBe('E_RATE_LIMIT');
    expect(srv.seen).toHaveLength(4);
  });
});

describe('failures that are retried', () => {
  it('5xx, then success', async () => {
    const { srv, client } = await setup((_r, res, n) =>
      n <= 2 ? json(res, 503, { error: { code: 503, message: 'down' } }) : ok(res),
    );
    const meter: RequestMeter = { requests: 0, retries: 0, http429: 0 };
    expect(await client.listGeofences({ meter })).toHaveLength(1);
    expect(srv.seen).toHaveLength(3);
    expect(meter).toEqual({
      requests: 3,
      retries: 2,
      http429: 0,
      read: { announced: 1, kept: 1, duplicates: 0 },
    });
    expect(client.stats()).toMatchObject({ requests: 3, retries: 2 });
  });

  it('connection reset, truncated body and non-JSON body, then success', async () => {
    const { srv, client } = await setup((_r, res, n) => {
      if (n === 1) return void res.socket?.destroy();
      if (n === 2) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"data":[{"geofence_id"');
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      }
      if (n === 3) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html>gateway</html>');
      }
      ok(res);
    });
    expect(await client.listGeofences()).toHaveLength(1);
    expect(srv.seen).toHaveLength(4);
  });

  it('a timeout, then success', async () => {
    const { srv, client } = await setup(
      (_r, res, n) => {
        if (n === 1) return; // never answers
        ok(res);
      },
      // long enough that the good answer never times out too beside three other test files
      { timeoutMs: 1_000 },
    );
    expect(await client.listGeofences()).toHaveLength(1);
    expect(srv.seen).toHaveLength(2);
  });

  it('exhausted budgets give E_HTTP / E_NETWORK with the cause', async () => {
    const { srv, client } = await setup(
      (r, res) => {
        if (r.path === '/rest/geofences')
          return json(res, 502, { error: { code: 502, message: 'bad gateway' } });
        res.socket?.destroy();
      },
      { maxRetries: 2 },
    );
    const http = await fail(client.listGeofences());
    expect(http?.code).toBe('E_HTTP');
    expect(http?.message).toContain('502');
    expect(srv.seen).toHaveLength(3);
    const net = await fail(client.listVehicles());
    expect(net?.code).toBe('E_NETWORK');
    expect(net?.cause).toBeInstanceOf(Error);
    expect(srv.seen).toHaveLength(6);
  });
});

describe('secrets', () => {
  it('never puts the password or the Basic credential in a log line or an error', async () => {
    const basic = Buffer.from(`acme:${PASSWORD}`).toString('base64');
    const { client, log } = await setup(
      (r, res) => {
        const echo = `${r.headers.authorization ?? ''} password=${PASSWORD}`;
        if (r.path === '/rest/vehicles')
          return json(res, 401, { error: { code: 401, message: `bad ${echo}` } });
        if (r.path === '/rest/geofences') return json(res, 500, { error: { code: 500, message: echo } });
        if (r.path === '/rest/carpool/drivers')
          return json(res, 429, { error: { message: echo } }, { 'X-RateLimit-Retry-At': 'x' });
        json(res, 400, { error: { code: 400, message: echo } });
      },
      { maxRetries: 1, maxRateLimitRetries: 1 },
    );
    const errors = [
      await fail(client.listGeofences()),
      await fail(client.listCarpoolDrivers()),
      await fail(client.listCarpoolVehicles()),
      await fail(client.listVehicles()), // last: a refusal stops the client
    ];
    expect(errors.map((e) => e?.code)).toEqual(['E_HTTP', 'E_RATE_LIMIT', 'E_HTTP', 'E_AUTH']);
    const texts = [
      ...log.lines,
      ...errors.flatMap((e) => [
        e?.message,
        String((e?.cause as Error | undefined)?.message),
        JSON.stringify(e?.details),
      ]),
    ];
    expect(log.lines.length).toBeGreaterThan(4);
    for (const t of texts) {
      expect(t).not.toContain(PASSWORD);
      expect(t).not.toContain(basic);
    }
  });
});
