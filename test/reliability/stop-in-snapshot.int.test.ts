/**
 * A stop (Ctrl-C, SIGTERM) that arrives while the run pulls its snapshots (the vehicle list and
 * the rest, before any window): the run is interrupted, not a failed snapshot. Mid-snapshot for
 * certain, not by timing: the simulator holds the run's first request unanswered (the client
 * would wait 10 minutes for it) and the stop comes once it is held. `fleetsync sync` (the CLI's
 * `main`, in this process, with its own stop signal) exits 130; the run's row says "interrupted:
 * the run was asked to stop", no snapshot counts as failed, and the next run (no hold) exits 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
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
    for (let i = 0; sim.stats().faults.hang === 0; i++) {
      if (i > 600) throw new Error('no request was held');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(sim.stats().total).toBe(1); // the held request is the run's first: a snapshot's
    stop.abort();
    const stopped = await running;
    expect(stopped.stderr + stopped.stdout).toMatch(/interrupted: the run was asked to stop/);
    expect(stopped.stdout).not.toMatch(/snapshot/);
    expect(stopped.code, stopped.stderr).toBe(EXIT_INTERRUPTED);
    expect(EXIT_INTERRUPTED).toBe(130);

    const db = await openDatabase(env.FLEETSYNC_DB);
    try {
      const runs = await queryDb(db, 'SELECT outcome, errors, windows_by_stream FROM runs');
      expect(runs).toHaveLength(1);
      expect(runs[0]!.outcome).toBe('partial');
      const errors = JSON.parse(String(runs[0]!.errors)) as { reason: string }[];
      expect(errors.map((e) => e.reason)).toEqual(['interrupted: the run was asked to stop']);
      expect(String(runs[0]!.windows_by_stream)).not.toMatch(/"failed":\s*[1-9]/);
    } finally {
      db.close();
    }

    sim.setFaults({});
    const next = await sync(env, new AbortController());
    expect(next.code, next.stderr).toBe(0);
  }, 60_000);
});
