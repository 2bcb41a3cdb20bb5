/**
 * A stop (Ctrl-C, SIGTERM) that arrives while the run pulls its snapshots (the vehicle list and
 * the rest, before any window): the run is interrupted, not a failed snapshot. Mid-snapshot for
 * certain, not by timing: the simulator holds the run's first request unanswered (the client
 * would wait 10 minutes for it) and the stop comes once it is held. `fleetsync sync` (the CLI's
 * `main`, in this process, with its own stop signal) exits 130; the run's row says "interrupted:
 * the run was asked to stop", no snapshot counts as failed, and the next run (no hold) exits 0.
 * A worker's job (its function, with the worker's stop signal) records the same: the job failed,
 * retrying, "interrupted", and its partial row published to the lake.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAccounts } from '../../src/accounts.ts';
import { main } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { readOutcome } from '../../src/lake/outcomes.ts';
import { silentLogger } from '../../src/log.ts';
import { syncAccountJob } from '../../src/worker/worker.ts';
import { EXIT_INTERRUPTED } from '../../src/commands/sync.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { localDate } from '../../src/time.ts';
import { queryDb } from '../helpers/synced.ts';

let fleet: Fleet;
let sim: SimulatorHandle;
let dir: string;
beforeAll(async () => {
  fleet = generateFleet({ seed: 31, vehicles: 2, days: 3, endDay: '2026-04-20' });
  sim = await startSimulator({ fleet, windowMs: 1000, faults: { hangEvery: 1 } });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-stop-snapshot-'));
});
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the simulator holds a request unanswered. */
async function held() {
  for (let i = 0; sim.stats().faults.hang === 0; i++) {
    if (i > 600) throw new Error('no request was held');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The run's row in the database `path`: its outcome, its errors' reasons, and its windows by stream. */
async function runRows(path: string) {
  const db = await openDatabase(path);
  try {
    return (await queryDb(db, 'SELECT outcome, errors, windows_by_stream FROM runs')).map((r) => ({
      outcome: r.outcome,
      reasons: (JSON.parse(String(r.errors)) as { reason: string }[]).map((e) => e.reason),
      failedWindows: /"failed":\s*[1-9]/.test(String(r.windows_by_stream)),
    }));
  } finally {
    db.close();
  }
}

const INTERRUPTED_ROW = {
  outcome: 'partial',
  reasons: ['interrupted: the run was asked to stop'],
  failedWindows: false,
};

async function sync(env: Record<string, string>, stop: AbortController) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: [
      'sync',
      '--from',
      localDate(fleet.startMs, fleet.timezone),
      '--to',
      localDate(fleet.endMs - 1, fleet.timezone),
    ],
    env,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stopSignal: stop.signal,
  });
  return { code, stdout, stderr };
}

describe('a stop during the snapshots', () => {
  it('the run is interrupted (exit 130, its row says so), not a failed snapshot; the next run exits 0', async () => {
    const env = {
      FLEET_BASE_URL: sim.baseUrl,
      FLEET_USERNAME: 'demo',
      FLEET_PASSWORD: 'demo-main',
      FLEET_TIMEZONE: fleet.timezone,
      FLEETSYNC_ACCOUNT: 'test',
      FLEETSYNC_DB: join(dir, 'fleet.duckdb'),
      FLEETSYNC_RATE_WINDOW_MS: '1000',
      FLEETSYNC_HTTP_TIMEOUT_MS: '600000',
      FLEETSYNC_LOG_LEVEL: 'info',
    };
    const stop = new AbortController();
    const running = sync(env, stop);
    await held();
    expect(sim.stats().total).toBe(1); // the held request is the run's first: a snapshot's
    stop.abort();
    const stopped = await running;
    expect(stopped.stderr + stopped.stdout).toMatch(/interrupted: the run was asked to stop/);
    expect(stopped.stdout).not.toMatch(/snapshot/);
    expect(stopped.code, stopped.stderr).toBe(EXIT_INTERRUPTED);
    expect(EXIT_INTERRUPTED).toBe(130);
    expect(await runRows(env.FLEETSYNC_DB)).toEqual([INTERRUPTED_ROW]);

    sim.setFaults({});
    const next = await sync(env, new AbortController());
    expect(next.code, next.stderr).toBe(0);
  }, 60_000);

  it("a worker's job: failed and retrying, 'interrupted', its partial row published to the lake", async () => {
    sim.setFaults({ hangEvery: 1 });
    const accountsFile = join(dir, 'accounts.json');
    writeFileSync(
      accountsFile,
      JSON.stringify({
        accounts: [
          {
            account: 'w',
            base_url: sim.baseUrl,
            username: 'demo',
            password_env: 'W_PASSWORD',
            timezone: fleet.timezone,
          },
        ],
      }),
    );
    const env = {
      FLEETSYNC_CONFIG: accountsFile,
      W_PASSWORD: 'demo-main',
      FLEETSYNC_RATE_WINDOW_MS: '1000',
      FLEETSYNC_HTTP_TIMEOUT_MS: '600000',
    };
    const config = loadConfig(env);
    const lakeDir = join(dir, 'lake');
    const stop = new AbortController();
    const job = syncAccountJob(
      {
        now: Date.now,
        config,
        accounts: loadAccounts(env, config),
        settings: {
          ...config.worker,
          queueUrl: 'postgres://unused',
          dataDir: join(dir, 'worker'),
          lakeDir,
        },
        log: silentLogger,
        signal: stop.signal,
      },
      {
        account: 'w',
        fromDay: localDate(fleet.startMs, fleet.timezone),
        toDay: localDate(fleet.endMs - 1, fleet.timezone),
      },
      'job-1',
      { id: 'job-1', attempt: 1, retriesLeft: true },
    ).then(
      () => null,
      (e: unknown) => e as Error,
    );
    await held();
    stop.abort();
    const failed = await job;
    expect(failed?.message).toMatch(
      /sync partial \(interrupted: the run was asked to stop\); the job's retry resumes it/,
    );
    expect(await runRows(join(dir, 'worker', 'accounts', 'w.duckdb'))).toEqual([INTERRUPTED_ROW]);
    const recorded = readOutcome(lakeDir, 'w')!;
    expect(recorded.published_at).not.toBeNull(); // the interrupted run's row is in the lake
    expect(recorded.last_job).toMatchObject({ outcome: 'failed', retrying: true });
    expect(recorded.last_job!.error).not.toMatch(/snapshot/);
  }, 60_000);
});
