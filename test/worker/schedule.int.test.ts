/**
 * Worker mode's schedule (FLEETSYNC_SCHEDULE): pg-boss cron, kept in Postgres, ticks once per
 * minute however many workers run, and each tick's jobs run once across the workers. Real
 * components: an embedded Postgres, two `fleetsync worker` child processes, three simulator
 * accounts of one vehicle each.
 *
 * The accounts are new, so each job syncs the first run's 30 days up to today (the fleets' history
 * lies months before: the jobs fetch empty days). What is tested is the tick and who runs its jobs;
 * that the workers' syncs hold every record is workers.int's test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { simAccountsEnv, workerProcesses } from './worker-processes.ts';

let pg: TestPostgres;
let dir: string;
const accts: { name: string; zone: string; sim: SimulatorHandle }[] = [];
let env: Record<string, string>;
const workers = workerProcesses(() => env);

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-schedule-'));
  for (let i = 0; i < 3; i++) {
    const fleet = generateFleet({ seed: 200 + i, vehicles: 1, days: 2, endDay: '2026-04-20' });
    accts.push({
      name: `acct-${i}`,
      zone: fleet.timezone,
      sim: await startSimulator({ fleet, windowMs: 1000 }),
    });
  }
  env = {
    ...simAccountsEnv(
      dir,
      pg.url,
      accts.map((a) => ({ name: a.name, baseUrl: a.sim.baseUrl, zone: a.zone })),
    ),
    FLEETSYNC_SCHEDULE: '* * * * *',
    FLEETSYNC_QUEUE_CRON_SECONDS: '1',
    // A job that a loaded machine runs long must not expire and go to a second worker
    // (at-least-once, by design: two "job done" lines for one queued job); this test is about the
    // schedule, so its jobs get time.
    FLEETSYNC_JOB_EXPIRE_SECONDS: '600',
  };
}, 120_000);

afterAll(async () => {
  workers.killAll();
  for (const a of accts) await a.sim.close();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fleetsync worker: the schedule', () => {
  it('a scheduled tick (pg-boss cron, in Postgres) runs each account exactly once across two workers', async () => {
    // From before the workers start: a tick may fire as soon as the first one has scheduled it.
    const t0 = Date.now();
    for (let i = 0; i < 2; i++) workers.start();
    await workers.until(() => workers.lines(/worker ready/).length === 2, 60_000, 'two workers ready');
    await workers.until(() => workers.lines(/scheduled tick/).length >= 1, 75_000, 'a scheduled tick');
    // A tick queues every account that is not queued already (a slow machine may still be busy
    // with the last tick's jobs when the next minute fires): wait until every job queued so far ran.
    const queued = () =>
      workers.lines(/scheduled tick/).reduce((n, l) => n + Number(/queued=(\d+)/.exec(l)?.[1] ?? NaN), 0);
    const done = () => workers.lines(/job done/);
    await workers.until(
      () => done().length >= accts.length && done().length === queued(),
      300_000,
      'the tick’s jobs',
    );
    workers.killAll();
    const ticks = workers.lines(/scheduled tick/);
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(t0 / 60_000) + 1;
    // Once per minute in all, not once per worker (two workers would give two per minute).
    expect(ticks.length).toBeLessThanOrEqual(minutes);
    // Every job a tick queued ran once; every account ran, and never more than once per tick.
    expect(done().length).toBe(queued());
    for (const a of accts) {
      const jobs = done().filter((l) => new RegExp(`\\b${a.name}\\b`).test(l)).length;
      expect({ a: a.name, once: jobs >= 1, atMostPerTick: jobs <= ticks.length }).toEqual({
        a: a.name,
        once: true,
        atMostPerTick: true,
      });
    }
    // No genuine 429 (the buckets that drew one, if any, are named).
    for (const a of accts)
      expect({
        a: a.name,
        limited: Object.entries(a.sim.stats().rateLimited).filter(([, n]) => n > 0),
      }).toEqual({
        a: a.name,
        limited: [],
      });
  }, 420_000);
});
