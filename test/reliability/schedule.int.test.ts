/**
 * The scheduler under stress. SIGKILL `fleetsync serve` while a scheduled sync (every second) is
 * writing, restart it, let a scheduled run finish, sync: the database equals an uninterrupted
 * sync's. And two ticks never overlap: with a slow sync on a one-second schedule only one run
 * is ever in flight, and the skipped ticks are logged.
 *
 * The servers are child processes (one is SIGKILLed); the reference sync and the sync after the
 * restart go through `main` in this process (the same command; what they show is the database).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { addDays, localDate } from '../../src/time.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { spawnCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

const ZONE = 'Australia/Sydney';
let sim: SimulatorHandle;
let dir: string;
let today: string;
let reference: Record<string, string>;

// `serve` syncs on the real clock (no injected time in a child process): the fleet's history
// ends ten days ago, so every window has settled and two runs a minute apart store the same.
beforeAll(async () => {
  today = localDate(Date.now(), ZONE);
  const fleet = generateFleet({
    seed: 11,
    vehicles: 4,
    days: 12,
    timezone: ZONE,
    endDay: addDays(today, -10),
  });
  sim = await startSimulator({ fleet, windowMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-schedule-'));
  const ref = await runMain(env(join(dir, 'reference.duckdb')), ...syncArgs());
  expect(ref.code, ref.stderr).toBe(0);
  reference = await dumpDatabase(join(dir, 'reference.duckdb'));
}, 60_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The range of a first incremental run: the last 30 local days. */
const syncArgs = () => ['sync', '--from', addDays(today, -29), '--to', today];

const env = (dbPath: string, extra: Record<string, string> = {}) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: ZONE,
  FLEETSYNC_ACCOUNT: 'sched',
  FLEETSYNC_DB: dbPath,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  FLEETSYNC_PORT: '0',
  FLEETSYNC_LOG_LEVEL: 'debug', // a line per committed window is at debug
  ...extra,
});

describe('fleetsync serve killed during a scheduled sync', () => {
  for (const point of [2, 12]) {
    it(`after ${point} committed windows: restart, sync, and the database equals an uninterrupted run`, async () => {
      const dbPath = join(dir, `serve-${point}.duckdb`);
      const every = env(dbPath, { FLEETSYNC_SCHEDULE: '* * * * * *' });
      const first = spawnCli(['serve'], every);
      let windows = 0;
      first.onLine((l) => {
        if (/ debug +window /.test(l) && ++windows === point) first.child.kill('SIGKILL');
      });
      const killed = await first.exited;
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(windows).toBeGreaterThanOrEqual(point);

      // Restart: the next scheduled run marks the killed one interrupted and fills gaps.
      const second = spawnCli(['serve'], every);
      await second.waitFor(/scheduled sync done/);
      second.child.kill('SIGTERM');
      const stopped = await second.exited;
      expect(stopped.code, stopped.stderr).toBe(0);
      // a clean stop: the run's connections (counted with the routes') all closed, nothing left behind
      expect(stopped.stderr).not.toMatch(/stopping:/);

      const sync = await runMain(env(dbPath), ...syncArgs());
      expect(sync.code, sync.stderr).toBe(0);
      const dump = await dumpDatabase(dbPath);
      for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
      const db = await openDatabase(dbPath);
      const con = await db.connect();
      const outcomes = (await con.runAndReadAll('SELECT outcome FROM runs')).getRowObjectsJS();
      con.closeSync();
      db.close();
      expect(outcomes.map((r) => r.outcome)).toContain('interrupted');
      expect(outcomes.map((r) => r.outcome)).not.toContain('running');
    }, 90_000);
  }
});

describe('scheduled ticks', () => {
  it('never overlap: a slow sync on a one-second schedule runs one at a time; skipped ticks are logged', async () => {
    const db = await openDatabase(join(dir, 'ticks.duckdb'));
    const log = memoryLogger('debug');
    let inFlight = 0;
    let maxInFlight = 0;
    let runs = 0;
    const summary = (n: number): RunSummary => ({
      run_id: `slow-${n}`,
      account: 'acme',
      outcome: 'ok',
      started_ms: 0,
      ended_ms: 0,
      requests: 0,
      retries: 0,
      http429ByBucket: {},
      streams: {},
      errors: [],
    });
    const srv = await startServer({
      now: Date.now,
      db,
      config: loadConfig({ FLEET_TIMEZONE: 'UTC', FLEETSYNC_SCHEDULE: '* * * * * *', FLEETSYNC_PORT: '0' }),
      log,
      port: 0,
      runSync: async () => {
        const n = ++runs;
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(2_300); // more than two ticks
        inFlight--;
        return summary(n);
      },
    });
    try {
      // Meanwhile an on-demand sync is refused while the scheduled one runs.
      await expect.poll(() => inFlight, { timeout: 3_000 }).toBe(1);
      const busy = await fetch(new URL('/api/sync', srv.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(busy.status).toBe(409);
      await expect.poll(() => runs, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(2);
    } finally {
      await srv.close();
      db.close();
    }
    expect(maxInFlight).toBe(1);
    const skipped = log.lines.filter((l) => / info +scheduled sync skipped/.test(l));
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    expect(log.lines.filter((l) => l.includes('scheduled sync done')).length).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
