/**
 * The command line as a scheduler uses it: `sync` and `status` with --json, the plan, exit codes,
 * and clear usage errors. Runs `main()` in-process against the simulator on port 0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { ACCOUNT, harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let env: Record<string, string>;

const cli = (...argv: string[]) => runMain(env, ...argv);

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 6, days: 30 } });
  env = harnessCliEnv(h);
}, 60_000);
afterAll(() => h?.close());

describe('fleetsync sync / status', () => {
  it('plans without sending a request', async () => {
    h.sim.resetStats();
    const r = await cli('sync', '--plan', '--json', '--from', h.firstDay, '--to', h.lastDay);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as {
      requestsByBucket: Record<string, number>;
      leastDurationMs: number;
      fromDay: string;
    };
    expect(plan.fromDay).toBe(h.firstDay);
    expect(plan.requestsByBucket.default).toBeGreaterThan(0);
    expect(h.sim.stats().total).toBe(0);
  });

  it('syncs, prints a JSON summary and exits 0', async () => {
    const r = await cli('sync', '--json', '--from', h.firstDay, '--to', h.lastDay);
    expect(r.stderr).not.toContain('demo-main');
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as {
      outcome: string;
      requests: number;
      streams: Record<string, { rows: number }>;
    };
    expect(s.outcome).toBe('ok');
    // Rows written per window: a trip that straddles two windows is written by both, stored once.
    const truth = h.fleet.truth.trips(h.fleet.startMs, h.fleet.endMs).length;
    expect(s.streams.trips!.rows).toBeGreaterThanOrEqual(truth);
    const { openDatabase } = await import('../../src/store/db.ts');
    const db = await openDatabase(env.FLEETSYNC_DB!);
    const con = await db.connect();
    const stored = Number(
      (await con.runAndReadAll('SELECT count(*) AS n FROM trips')).getRowObjectsJS()[0]!.n,
    );
    con.closeSync();
    db.close();
    expect(stored).toBe(truth);
    expect(s.requests).toBeGreaterThan(10);
  });

  it('reports coverage and the flagged windows in status', async () => {
    const text = await cli('status');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/last runs:[\s\S]*ok/);
    expect(text.stdout).toMatch(/flagged +odometer/);
    const json = JSON.parse((await cli('status', '--json')).stdout) as {
      runs: { outcome: string; range_from: string }[];
      coverage: { stream: string; failed: number }[];
    };
    expect(json.runs[0]).toMatchObject({ outcome: 'ok', range_from: h.firstDay });
    expect(json.coverage.map((c) => c.stream)).toEqual(
      expect.arrayContaining(['trips', 'odometer', 'fuel_consumed', 'visits', 'bookings']),
    );
  });

  it('exports the database’s only account with no account configured, and refuses an unknown one', async () => {
    const saved = env;
    const out = join(h.dir, 'mileage.csv');
    env = { FLEETSYNC_DB: saved.FLEETSYNC_DB! };
    try {
      const r = await cli('export', 'mileage', '--from', h.firstDay, '--to', h.lastDay, '--out', out);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/wrote [1-9]\d* rows? of mileage .*Australia\/Sydney/);
      env = { FLEETSYNC_DB: saved.FLEETSYNC_DB!, FLEETSYNC_ACCOUNT: 'nobody' };
      const bad = await cli('export', 'mileage', '--out', out);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`no data for account "nobody" (FLEETSYNC_ACCOUNT); it holds: ${ACCOUNT}`);
    } finally {
      env = saved;
    }
  });

  it('export and status on a missing database say so and create nothing', async () => {
    const saved = env;
    const path = join(h.dir, 'missing', 'fleet.duckdb');
    env = { FLEETSYNC_DB: path };
    try {
      for (const argv of [['export', 'mileage'], ['status']]) {
        const r = await cli(...argv);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`no database at ${path}`);
      }
    } finally {
      env = saved;
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(h.dir, 'missing'))).toBe(false);
  });

  it.each([
    [['sync', '--from', '2026-02-31'], /--from must be a calendar day/],
    [['sync', '--from', '2026-04-10', '--to', '2026-04-01'], /--to 2026-04-01 is before --from 2026-04-10/],
    [['sync', '--streams', 'trips,tolls'], /unknown stream "tolls"/],
    [['sync', '--bogus'], /Unknown option '--bogus'/],
    [['status', '--runs', 'many'], /--runs must be a whole number/],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const r = await cli(...argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('names every missing setting at once and exits 2 before touching anything', async () => {
    const saved = env;
    env = { FLEETSYNC_DB: join(h.dir, 'never.duckdb'), FLEET_TIMEZONE: 'Mars/Base' };
    try {
      const r = await cli('sync');
      expect(r.code).toBe(2);
      for (const name of ['FLEET_COUNTRY', 'FLEET_USERNAME', 'FLEET_PASSWORD', 'FLEET_TIMEZONE'])
        expect(r.stderr).toContain(name);
    } finally {
      env = saved;
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(h.dir, 'never.duckdb'))).toBe(false);
  });
});
