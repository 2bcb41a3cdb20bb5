/**
 * FLEETSYNC_HTTP_TIMEOUT_MS and FLEETSYNC_CONCURRENCY: bad values are named, and the timeout
 * reaches the client: against a simulator that never answers, the sync's window fails with
 * "no answer within 1000 ms (FLEETSYNC_HTTP_TIMEOUT_MS)" and the run exits 3, nothing stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';

let dir: string;
let sim: SimulatorHandle;

const cli = runMain;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-http-settings-'));
  const fleet = generateFleet({ seed: 3, vehicles: 2, days: 10, endDay: '2026-03-20' });
  sim = await startSimulator({ fleet, windowMs: 1000, faults: { hangEvery: 1 } });
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string>) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEETSYNC_DB: join(dir, 'fleet.duckdb'),
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  ...extra,
});

describe('HTTP settings', () => {
  it('names a bad timeout or concurrency and starts nothing', async () => {
    const r = await cli(
      env({ FLEETSYNC_HTTP_TIMEOUT_MS: '50', FLEETSYNC_CONCURRENCY: '0' }),
      'sync',
      '--streams',
      'vehicles',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEETSYNC_HTTP_TIMEOUT_MS.*between 1000 and 600000/);
    expect(r.stderr).toMatch(/FLEETSYNC_CONCURRENCY.*between 1 and 64/);
    expect(sim.stats().total).toBe(0);
  });

  it('a server that never answers: the window fails naming the timeout setting, exit 3', async () => {
    const r = await cli(env({ FLEETSYNC_HTTP_TIMEOUT_MS: '1000' }), 'sync', '--streams', 'vehicles');
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no answer within 1000 ms \(FLEETSYNC_HTTP_TIMEOUT_MS\)/);
    expect(sim.stats().faults.hang).toBeGreaterThan(1); // retried before giving up
  }, 60_000);
});
