import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createBucketSet, MIN_SAFETY_MARGIN_MS } from '../../src/api/buckets.ts';
import { BUCKET_LIMITS, bucketFor, createFleetClient, leastDurationMs } from '../../src/api/client.ts';
import {
  fakeClock,
  type FakeClock,
  json,
  list,
  PASSWORD,
  startServer,
  trackedAgent,
  type TestServer,
} from '../helpers/api.ts';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('bucketFor', () => {
  it('maps each limited endpoint to its bucket and everything else to default', () => {
    expect(bucketFor('POST', '/fuel/consumed')).toBe('fuel_consumed_bulk');
    expect(bucketFor('POST', '/fuel/level')).toBe('fuel_level_bulk');
    expect(bucketFor('GET', '/fuel/consumed/ab%20123')).toBe('default');
    expect(bucketFor('POST', '/vehicles/soc')).toBe('ev_soc');
    expect(bucketFor('GET', '/vehicles/vext?x=1')).toBe('vext');
    expect(bucketFor('GET', '/vehicles/status')).toBe('vehicles_status');
    expect(bucketFor('GET', '/vehicles/events')).toBe('vehicles_events');
    expect(bucketFor('GET', '/vehicles/ab%20123/events')).toBe('vehicle_events');
    expect(bucketFor('GET', '/vehicles/ab%20123/events/idling')).toBe('vehicle_idling');
    expect(bucketFor('GET', '/vehicles/events/types')).toBe('default');
    expect(bucketFor('GET', '/vision/status')).toBe('vision_status');
    expect(bucketFor('GET', '/trips')).toBe('default');
    expect(BUCKET_LIMITS.default).toBe(1000);
    expect(BUCKET_LIMITS.vision_status).toBe(6);
  });
});

describe('leastDurationMs', () => {
  const W = 60_000;
  it('is the slowest bucket: (ceil(n/L) - 1) windows', () => {
    expect(leastDurationMs({}, { windowMs: W })).toBe(0);
    expect(leastDurationMs({ default: 1000 }, { windowMs: W })).toBe(0);
    expect(leastDurationMs({ default: 1001 }, { windowMs: W })).toBe(W);
    expect(leastDurationMs({ default: 500, fuel_consumed_bulk: 25 }, { windowMs: W })).toBe(2 * W);
    expect(leastDurationMs({ fuel_consumed_bulk: 30, fuel_level_bulk: 31 }, { windowMs: W })).toBe(3 * W);
    expect(leastDurationMs({ vision_status: 0 }, { windowMs: W })).toBe(0);
  });
  it('honours overridden limits, unknown buckets (default limit) and the safety margin', () => {
    expect(leastDurationMs({ default: 30 }, { windowMs: W, limits: { default: 10 } })).toBe(2 * W);
    expect(leastDurationMs({ something_new: 2500 }, { windowMs: W })).toBe(2 * W);
    expect(leastDurationMs({ default: 2001 }, { windowMs: W, safetyMargin: 0.02 })).toBe(2 * 61_200);
  });
});

/** A 429 (the bucket is full) or a page of one geofence. */
function answer(res: ServerResponse, n: number, refused: boolean) {
  if (refused)
    json(
      res,
      429,
      { error: { code: 429, message: 'slow down' } },
      { 'X-RateLimit-Retry-After-Seconds': '5' },
    );
  else json(res, 200, list([{ geofence_id: `g${n}`, name: 'x', is_toll: false }]));
}

/** Requests counted in the 60 s before `t`. */
const inWindow = (counted: readonly number[], t: number) => counted.filter((a) => a > t - 60_000).length;

/** A client of `srv` whose default bucket takes `limit` a window, on the fake clock. */
const bucketClient = (
  limit: number,
  safetyMargin: number,
  clock: FakeClock,
  agent: ReturnType<typeof trackedAgent>,
) =>
  createFleetClient({
    baseUrl: srv!.baseUrl,
    username: 'acme',
    password: PASSWORD,
    timezone: 'UTC',
    limits: { default: limit },
    safetyMargin,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    dispatcher: agent.dispatcher,
  });

describe('rate buckets against a server that counts arrivals', () => {
  const LIMIT = 5;
  /** 429 when more than LIMIT requests arrived in the last window; the first batch arrives 1 s late. */
  async function run(safetyMargin: number) {
    const agent = trackedAgent();
    const clock = fakeClock(undefined, agent.busy);
    const arrivals: number[] = [];
    let rejected = 0;
    srv = await startServer((_req, res, n) => {
      const t = clock.now() + (n <= LIMIT ? 1000 : 0); // latency of the first burst
      const refused = inWindow(arrivals, t) >= LIMIT;
      arrivals.push(t); // every arrival counts, refused or not
      if (refused) rejected++;
      answer(res, n, refused);
    }, clock.now);
    const client = bucketClient(LIMIT, safetyMargin, clock, agent);
    const t0 = clock.now();
    const results = await Promise.all(Array.from({ length: 2 * LIMIT }, () => client.listGeofences()));
    await client.close();
    await agent.close();
    return { results, rejected, elapsed: clock.now() - t0, stats: client.stats() };
  }

  it('sends 2×limit requests with zero 429s, taking at least one window', async () => {
    const r = await run(0.02);
    expect(r.results.flat()).toHaveLength(2 * LIMIT);
    expect(r.rejected).toBe(0);
    expect(r.stats.http429ByBucket).toEqual({});
    expect(r.stats.requestsByBucket.default).toBe(2 * LIMIT);
    expect(r.elapsed).toBeGreaterThanOrEqual(60_000);
    expect(r.stats.waitedMsByBucket.default).toBeGreaterThanOrEqual(LIMIT * 60_000);
    expect(srv!.seen.slice(LIMIT).every((s) => s.t >= srv!.seen[0]!.t + 60_000)).toBe(true);
  });

  it('without the safety margin, latency makes the server see too many arrivals', async () => {
    const r = await run(0);
    expect(r.rejected).toBeGreaterThan(0);
    expect(r.results.flat()).toHaveLength(2 * LIMIT); // and the 429s were retried to success
  });
});

describe('a send counts from its answer', () => {
  it('a server that gets to a burst late (by more than the margin) draws no 429 from the next window', async () => {
    const LIMIT = 5;
    const WORK_MS = 700;
    const agent = trackedAgent();
    // The server works through the first burst one request at a time, 700 ms each, so it stamps the
    // fifth 3.5 s after it was sent: beyond the 1.2 s margin of a 60 s window. Time moves while it
    // works (its waits are not counted as requests on the wire), and later requests meet no delay.
    let working = 0;
    const clock = fakeClock(undefined, () => agent.busy() - working);
    const stamps: number[] = [];
    let rejected = 0;
    let line = Promise.resolve();
    srv = await startServer(async (_req, res, n) => {
      if (n <= LIMIT) {
        working++;
        const turn = line.then(() => clock.sleep(WORK_MS));
        line = turn;
        await turn;
        working--;
      }
      const t = clock.now();
      const refused = inWindow(stamps, t) >= LIMIT;
      if (refused) rejected++;
      else stamps.push(t); // only what it serves counts, as the simulator's limiter
      answer(res, n, refused);
    }, clock.now);
    const client = bucketClient(LIMIT, 0.02, clock, agent);
    const results = await Promise.all(Array.from({ length: 2 * LIMIT }, () => client.listGeofences()));
    await client.close();
    await agent.close();
    expect(results.flat()).toHaveLength(2 * LIMIT);
    expect(stamps[LIMIT - 1]! - stamps[0]!).toBe((LIMIT - 1) * WORK_MS); // the burst was stamped late, as meant
    expect(rejected).toBe(0);
    // Each request of the second window reached the server a full window after the one whose slot it took.
    for (let i = LIMIT; i < stamps.length; i++)
      expect(stamps[i]! - stamps[i - LIMIT]!).toBeGreaterThan(60_000);
  });
});

describe("the account's previous requests", () => {
  it('every bucket waits until a full window and the margin have passed since the last run ended', async () => {
    const clock = fakeClock();
    const WINDOW = 60_000;
    const horizon = WINDOW + Math.max(Math.ceil(WINDOW * 0.02), MIN_SAFETY_MARGIN_MS);
    const b = createBucketSet({ windowMs: WINDOW, safetyMargin: 0.02, now: clock.now, sleep: clock.sleep });
    const t0 = clock.now();
    // the last run ended 10 s ago: the wait is returned (the sync logs it before the silence)
    expect(b.holdWindowSince(10_000)).toBe(horizon - 10_000);
    await b.acquire('ev_consumption');
    expect(clock.now() - t0).toBe(horizon - 10_000);
    expect(b.holdWindowSince(horizon + 1)).toBe(0); // longer ago than a window: nothing to wait for
    const t1 = clock.now();
    await b.acquire('default');
    expect(clock.now()).toBe(t1);
  });
});

describe('a send still unanswered', () => {
  it('keeps its slot past the window until its answer: a slow request never lets one more through', async () => {
    const clock = fakeClock();
    const WINDOW = 1_000;
    const horizon = WINDOW + MIN_SAFETY_MARGIN_MS; // 2 % of 1 s is under the floor
    const b = createBucketSet({
      windowMs: WINDOW,
      safetyMargin: 0.02,
      limits: { default: 2 },
      now: clock.now,
      sleep: clock.sleep,
    });
    const first = await b.acquire('default');
    first.sent();
    (await b.acquire('default')).sent();
    let third = false;
    const waiting = b.acquire('default').then((t) => ((third = true), t));
    // ten windows pass with both requests still on the wire: the server may count either any time
    await clock.sleep(10 * WINDOW);
    expect(third).toBe(false);
    first.answered();
    const answeredAt = clock.now();
    await waiting;
    expect(clock.now() - answeredAt).toBe(horizon);
  });
});
