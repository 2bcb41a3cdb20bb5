/**
 * FLEETSYNC_STREAMS (and `streams` of an account in the accounts file) leave streams out of the
 * runs `serve` and `worker` start, as `--streams` does for one `sync` (issue 23 item 3): a stream
 * left out sends no request and stores nothing, the others are pulled whole. Each runs its real
 * sync function (serve's scheduler and POST /api/sync, a worker's job) against the simulator.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAccounts } from '../../src/accounts.ts';
import { productionRunSync } from '../../src/commands/serve.ts';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { addDays, localDate } from '../../src/time.ts';
import { syncAccountJob } from '../../src/worker/worker.ts';
import { queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
beforeAll(async () => {
  // serve's runs are incremental from today (the real clock): a history that ended days ago.
  const endDay = addDays(localDate(Date.now(), 'Australia/Sydney'), -4);
  h = await startHarness({ fleet: { vehicles: 3, days: 12, endDay }, realClock: true });
}, 60_000);
afterAll(() => h?.close());

const api = () => ({
  FLEET_BASE_URL: h.sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: h.fleet.timezone,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
});
const ledgerStreams = async (db: Database) =>
  (await queryDb(db, 'SELECT DISTINCT stream FROM ledger ORDER BY stream')).map((r) => String(r.stream));
const count = async (db: Database, table: string) =>
  Number((await queryDb(db, `SELECT count(*) AS n FROM ${table}`))[0]!.n);

describe('streams left out', () => {
  it('serve: FLEETSYNC_STREAMS=-trips,-visits syncs every other stream and none of those', async () => {
    const env = { ...api(), FLEETSYNC_ACCOUNT: 'serve', FLEETSYNC_STREAMS: '-trips,-visits' };
    const config = loadConfig(env, { runsSchedule: true });
    const db = await openDatabase(join(h.dir, 'serve.duckdb'));
    try {
      const run = await productionRunSync(
        db,
        config,
        silentLogger,
        { signal: new AbortController().signal, now: Date.now },
        env,
      );
      const s = await run!('api');
      expect(s.outcome).toBe('ok');
      expect(Object.keys(s.streams)).not.toContain('trips');
      const streams = await ledgerStreams(db);
      expect(streams).toContain('odometer');
      expect(streams).not.toContain('trips');
      expect(streams).not.toContain('visits');
      expect(await count(db, 'trips')).toBe(0);
      expect(await count(db, 'geofence_visits')).toBe(0);
      expect(await count(db, 'odometer_windows')).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 120_000);

  it('worker: an account with "streams": ["odometer"] pulls the odometer (and the vehicles it needs) only', async () => {
    const file = join(h.dir, 'accounts.json');
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          {
            account: 'w',
            base_url: h.sim.baseUrl,
            username: 'demo',
            password_env: 'W_PASSWORD',
            timezone: h.fleet.timezone,
            streams: ['odometer'],
          },
        ],
      }),
    );
    const env = { FLEETSYNC_CONFIG: file, W_PASSWORD: 'demo-main', FLEETSYNC_RATE_WINDOW_MS: '1000' };
    const config = loadConfig(env);
    const dataDir = join(h.dir, 'worker');
    await syncAccountJob(
      {
        now: Date.now,
        config,
        accounts: loadAccounts(env, config),
        settings: {
          queueUrl: 'postgres://unused',
          dataDir,
          lakeDir: null,
          expireSeconds: 3600,
          retryLimit: 0,
          retryDelaySeconds: 0,
          maintenanceSeconds: 60,
          pollSeconds: 1,
          cronSeconds: 30,
          outageSeconds: 60,
        },
        log: silentLogger,
        signal: new AbortController().signal,
      },
      { account: 'w', fromDay: h.firstDay, toDay: h.lastDay },
      'job-1',
    );
    const db = await openDatabase(join(dataDir, 'accounts', 'w.duckdb'));
    try {
      expect(await ledgerStreams(db)).toEqual(['odometer']);
      expect(await count(db, 'vehicles')).toBe(h.fleet.vehicles.length);
      expect(await count(db, 'trips')).toBe(0);
      expect(await count(db, 'odometer_windows')).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  }, 120_000);
});
