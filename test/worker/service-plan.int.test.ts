/**
 * Worker mode loads the service plan (FLEETSYNC_SERVICE_PLAN) as `serve` does. At start: a bad
 * file stops the worker (exit 2) naming every problem, before it reaches for its queue, and nothing
 * stored changes; a good one is stored in its account's file (FLEETSYNC_ACCOUNT), so the alerts
 * judged on that file see it (BOTH overdue and MONTHS due on the hand-worked fixture,
 * test/service/fixture.ts; without the plan, no service alert). A new account's first job stores it
 * in the file the job creates (a simulator of two vehicles and three days; `syncAccountJob` run
 * directly, no Postgres: the queue is not what is tested; nothing listens on the queue's port).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../src/alerts/alerter.ts';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { loadServicePlanAtStart, syncAccountJob, type JobDeps } from '../../src/worker/jobs.ts';
import { runMain } from '../helpers/cli.ts';
import { freePort } from '../helpers/postgres.ts';
import { startWebhookReceiver } from '../helpers/receivers.ts';
import { queryDb } from '../helpers/synced.ts';
import { ACCOUNT, NOW, ZONE, openServiceFixture } from '../service/fixture.ts';

let dir: string;
let planPath: string;
let accountFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  // the hand-worked fixture as the worker's account file, without its plan
  const fx = await openServiceFixture();
  await fx.con.run(
    "DELETE FROM service_plan_source; DELETE FROM service_intervals; DELETE FROM service_records WHERE source = 'file'",
  );
  fx.con.closeSync();
  fx.db.close();
  dir = fx.dir;
  planPath = fx.planPath;
  mkdirSync(join(dir, 'data', 'accounts'), { recursive: true });
  accountFile = join(dir, 'data', 'accounts', `${ACCOUNT}.duckdb`);
  renameSync(join(dir, 'fleet.duckdb'), accountFile);
  env = {
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_BASE_URL: 'http://127.0.0.1:1/rest',
    FLEET_USERNAME: 'demo',
    FLEET_PASSWORD: 'demo-main',
    FLEET_TIMEZONE: ZONE,
    FLEETSYNC_DATA_DIR: join(dir, 'data'),
    FLEETSYNC_QUEUE_URL: `postgres://fleetsync@127.0.0.1:${await freePort()}/queue`,
    FLEETSYNC_SERVICE_PLAN: planPath,
  };
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const planRows = async () => {
  const db = await openDatabase(accountFile);
  try {
    return await queryDb(
      db,
      "SELECT (SELECT count(*) FROM service_plan_source)::INTEGER AS sources, (SELECT count(*) FROM service_intervals)::INTEGER AS intervals, (SELECT count(*) FROM service_records WHERE source = 'file')::INTEGER AS services",
    );
  } finally {
    db.close();
  }
};

/** The service incidents the alerter opens on the account file at the fixture's NOW. */
async function serviceAlerts(): Promise<string[]> {
  const hook = await startWebhookReceiver();
  const db = await openDatabase(accountFile);
  const alerter = createAlerter({
    db,
    config: {
      alertWebhook: hook.url,
      smtpUrl: null,
      alertEmail: [],
      alertFrom: null,
      staleHours: 48,
      timezone: ZONE,
    },
    log: memoryLogger(),
    now: () => NOW,
  });
  try {
    await alerter.check();
    return hook.posts
      .map((p) => (p.body as unknown as { fleetsync: { incident: string; state: string } }).fleetsync)
      .filter((f) => f.incident.startsWith('service:'))
      .map((f) => `${f.incident} ${f.state}`)
      .sort();
  } finally {
    alerter.close();
    db.close();
    await hook.close();
  }
}

describe('worker mode: the service plan', () => {
  it('a bad plan stops the worker at start naming every problem; a good one is stored in its account file, and the alerts see it', async () => {
    const bad = join(dir, 'bad-plan.json');
    writeFileSync(
      bad,
      JSON.stringify({
        intervals: [{ every_km: 0 }],
        services: [{ vehicle: 'GHOST', date: '2026-07-01', odometer_km: 1 }],
      }),
    );
    const refused = await runMain({ ...env, FLEETSYNC_SERVICE_PLAN: bad }, 'worker');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('every_km must be more than 0');
    expect(refused.stderr).toContain('unknown vehicle "GHOST"');
    expect(refused.stderr).not.toContain('cannot reach Postgres');
    expect(await planRows()).toEqual([{ sources: 0, intervals: 0, services: 0 }]);
    expect(await serviceAlerts()).toEqual([]);

    // the good plan: loaded at start, then the queue is unreachable (exit 75, restartable)
    const started = await runMain(env, 'worker');
    expect(started.stderr).toContain('cannot reach Postgres');
    expect(started.code).toBe(75);
    expect(await planRows()).toEqual([{ sources: 1, intervals: 3, services: 5 }]);
    expect(await serviceAlerts()).toEqual(['service:2 open', 'service:3 open']);

    // FLEETSYNC_ACCOUNT not one of the worker's accounts: refused, naming it
    const accounts = writeAccounts('other');
    const other = await runMain({ ...env, FLEETSYNC_CONFIG: accounts, OTHER_PW: 'x' }, 'worker');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      `FLEETSYNC_SERVICE_PLAN is the plan of account ${ACCOUNT} (FLEETSYNC_ACCOUNT), which is not one of this worker's accounts (other)`,
    );
  });

  it("a new account's first job stores the plan in the file it creates", async () => {
    const now = Date.parse('2026-04-20T21:30:00Z');
    const fleet = generateFleet({ seed: 11, vehicles: 2, days: 3, endDay: '2026-04-20', timezone: ZONE });
    const sim = await startSimulator({ fleet, windowMs: 1000, now: () => now });
    try {
      const plan = join(dir, 'new-plan.json');
      const id = fleet.vehicles[0]!.vehicle_id;
      writeFileSync(
        plan,
        JSON.stringify({
          intervals: [{ every_km: 10000 }],
          services: [{ vehicle: id, date: '2026-04-18', odometer_km: 1000 }],
        }),
      );
      const config = loadConfig({
        ...env,
        FLEETSYNC_ACCOUNT: 'fresh',
        FLEET_BASE_URL: sim.baseUrl,
        FLEETSYNC_RATE_WINDOW_MS: '1000',
        FLEETSYNC_SERVICE_PLAN: plan,
      });
      const log = memoryLogger('info');
      const deps: JobDeps = {
        config,
        accounts: [
          {
            account: 'fresh',
            baseUrl: sim.baseUrl,
            username: 'demo',
            password: 'demo-main',
            timezone: ZONE,
            changelogUrl: null,
          },
        ],
        settings: { ...config.worker, queueUrl: 'postgres://unused@127.0.0.1/none', lakeDir: null },
        log,
        signal: new AbortController().signal,
        now: () => now,
      };
      // no file yet: checked (by vehicle id, the vehicles are not synced), nothing created
      await loadServicePlanAtStart(deps);
      await syncAccountJob(deps, { account: 'fresh', fromDay: '2026-04-18', toDay: '2026-04-20' }, 'job-1');
      const db = await openDatabase(join(dir, 'data', 'accounts', 'fresh.duckdb'));
      try {
        expect(
          await queryDb(
            db,
            "SELECT vehicle_id::INTEGER AS v, service_day::VARCHAR AS day, odometer_km FROM service_records WHERE source = 'file'",
          ),
        ).toEqual([{ v: id, day: '2026-04-18', odometer_km: 1000 }]);
        expect(await queryDb(db, 'SELECT count(*)::INTEGER AS n FROM service_plan_source')).toEqual([
          { n: 1 },
        ]);
      } finally {
        db.close();
      }
    } finally {
      await sim.close();
    }
  });
});

/** An accounts file (FLEETSYNC_CONFIG) of one account named `name`. */
function writeAccounts(name: string): string {
  const p = join(dir, `accounts-${name}.json`);
  writeFileSync(
    p,
    JSON.stringify({
      accounts: [
        {
          account: name,
          base_url: 'http://127.0.0.1:1/rest',
          username: 'u',
          password_env: 'OTHER_PW',
          timezone: ZONE,
        },
      ],
    }),
  );
  return p;
}
