/**
 * Granted limits (issue 23 item 4) through the real CLI against the simulator: FLEETSYNC_LIMITS
 * is held by the client's buckets (a simulator that grants only 20 requests a window answers no
 * genuine 429 to a sync told so), shown by `sync --plan` and used by the planner: its least time
 * is the one the limits given allow, recomputed here from the spec's table and the grant; a limit
 * above the spec's is named in the log at start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/time.ts';
import { runMain } from '../helpers/cli.ts';
import { harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

/** The spec's Limits table (requests per minute), by the client's bucket names. */
const DOCUMENTED: Record<string, number> = {
  default: 1000,
  fuel_consumed_bulk: 10,
  fuel_level_bulk: 10,
  ev_consumption: 10,
  ev_range: 10,
  ev_soc: 10,
  vext: 10,
  vehicles_status: 60,
  vehicles_events: 60,
  vehicle_events: 200,
  vehicle_idling: 200,
  vision_status: 6,
};
const WINDOW_MS = 1000;

interface Plan {
  requestsByBucket: Record<string, number>;
  limitsByBucket: Record<string, number>;
  leastDurationMs: number;
  fuelPath: { chosen: string };
}

let h: Harness;
let env: Record<string, string>;
const cli = (extra: Record<string, string>, ...argv: string[]) => runMain({ ...env, ...extra }, ...argv);
const plan = async (extra: Record<string, string>) => {
  const r = await cli(
    extra,
    'sync',
    '--plan',
    '--json',
    '--from',
    addDays(h.firstDay, 12),
    '--to',
    h.lastDay,
  );
  expect(r.code, r.stderr).toBe(0);
  return { plan: JSON.parse(r.stdout) as Plan, stderr: r.stderr };
};
/** The least time a plan's requests need under `limits`: the slowest bucket's full windows. */
const least = (p: Plan, limits: Record<string, number>) =>
  Math.max(
    0,
    ...Object.entries(p.requestsByBucket).map(
      ([b, n]) => (Math.ceil(n / (limits[b] ?? DOCUMENTED[b]!)) - 1) * WINDOW_MS,
    ),
  );

beforeAll(async () => {
  // The simulator grants this account only 20 requests a window on the default bucket.
  h = await startHarness({
    fleet: { vehicles: 4, days: 30 },
    windowMs: WINDOW_MS,
    sim: { limits: { default: 20 } },
  });
  env = harnessCliEnv(h, { FLEETSYNC_RATE_WINDOW_MS: String(WINDOW_MS) });
}, 60_000);
afterAll(() => h?.close());

describe('granted limits', () => {
  it('the client holds to a lowered limit: a sync of more requests than it allows draws no genuine 429', async () => {
    h.sim.resetStats();
    const r = await cli(
      { FLEETSYNC_LIMITS: 'default=20' },
      'sync',
      '--json',
      '--from',
      h.firstDay,
      '--to',
      addDays(h.firstDay, 11),
    );
    expect(r.code, r.stderr).toBe(0);
    const stats = h.sim.stats();
    expect(stats.requests.default).toBeGreaterThan(40); // more than two windows' worth
    expect(stats.rateLimited.default).toBe(0);
    expect(r.stderr).toMatch(/lowered: 20\/min on the default bucket \(documented 1,000\)/);
  }, 120_000);

  // The plans are of the days the first run left: per-vehicle streams, every bucket they use.
  it('change the plan: the limits shown are those given, and the least time is what they allow', async () => {
    const spec = (await plan({})).plan;
    expect(spec.requestsByBucket.default).toBeGreaterThan(10);
    expect(spec.limitsByBucket.default).toBe(1000);
    expect(spec.leastDurationMs).toBe(least(spec, {}));

    const lowered = (await plan({ FLEETSYNC_LIMITS: 'default=5' })).plan;
    // the same work, though not always the same requests: under a lowered default limit the planner
    // may read the fuel counters in bulk (their own bucket) where that takes less time
    expect(lowered.requestsByBucket.default).toBeLessThanOrEqual(spec.requestsByBucket.default!);
    expect(lowered.limitsByBucket.default).toBe(5);
    expect(lowered.leastDurationMs).toBe(least(lowered, { default: 5 }));
    expect(lowered.leastDurationMs).toBeGreaterThan(spec.leastDurationMs);

    const limits =
      'default=2000,POST /fuel/consumed=500,POST /fuel/level=500,GET /vehicles/{registration}/events=1000';
    const granted = await plan({ FLEETSYNC_LIMITS: limits });
    const grant = { default: 2000, fuel_consumed_bulk: 500, fuel_level_bulk: 500, vehicle_events: 1000 };
    for (const [b, n] of Object.entries(granted.plan.limitsByBucket))
      expect(n, b).toBe((grant as Record<string, number>)[b] ?? DOCUMENTED[b]);
    expect(granted.plan.leastDurationMs).toBe(least(granted.plan, grant));
    expect(granted.plan.leastDurationMs).toBeLessThanOrEqual(spec.leastDurationMs);
    expect(granted.stderr).toMatch(/granted: 2,000\/min on the default bucket \(documented 1,000\)/);
    expect(granted.stderr).toMatch(/granted: 500\/min on POST \/fuel\/consumed \(documented 10\)/);
  });

  it('`sync --plan` prints each bucket with its limit, marked where granted or lowered', async () => {
    const r = await cli(
      { FLEETSYNC_LIMITS: 'default=2000,vext=5' },
      'sync',
      '--plan',
      '--streams',
      'vehicles,trips',
      '--from',
      h.firstDay,
      '--to',
      h.lastDay,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^bucket\s+requests\s+limit$/m);
    expect(r.stdout).toMatch(/^default\s+\d+\s+2000 granted$/m);
  });
});
