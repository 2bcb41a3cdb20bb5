/**
 * Worker mode with real components: an embedded Postgres, six simulator accounts (each its own
 * simulator with its own rate-limit buckets), three `fleetsync worker` child processes. One worker
 * is SIGKILLed in the middle of a job; its job expires and another worker resumes it. Every
 * account's stored rows (every account-keyed table, the facts of the runs themselves masked) equal
 * a single-process sync of the same simulator, the lake's files hold exactly the rows of each
 * worker's file, a report of each family of lake views exports byte-equal from the lake, and no
 * simulator saw a genuine 429. A worker asked to stop (SIGTERM) in the middle of a job publishes
 * the interrupted run: the lake then holds exactly its file's rows. The workers' schedule (pg-boss
 * cron) is schedule.int's test.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import { memoryLogger } from '../../src/log.ts';
import { lakeTables } from '../../src/lake/publish.ts';
import { readOutcome } from '../../src/lake/outcomes.ts';
import { lakeAccounts, openLake } from '../../src/lake/read.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, type MetaCache } from '../../src/reports/run.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { localDate } from '../../src/time.ts';
import { runMain } from '../helpers/cli.ts';
import { startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { simAccountsEnv, workerProcesses, type WorkerProcess } from './worker-processes.ts';

const EXPIRE_SECONDS = 12;
/**
 * The days every job syncs: all six histories (6–11 days up to 20 Apr) lie inside, with a few days
 * to spare (from 1 Mar, the jobs and the reference syncs asked for seven empty weeks: 3–5× the
 * requests).
 */
const FROM = '2026-04-05';
const TO = '2026-04-20';
/**
 * The reports exported from the lake, one per family of lake views they read (through the models):
 * what a report path does differently on a lake — views over Parquet with cast columns, the
 * account a Hive partition key, files listed at query time, the facts of the files (complete
 * through, the last run) asked of the lake — is shown once per family; the rows themselves are
 * compared table by table (`accountRows`), which covers every figure of every other report.
 * kpis: odometer, fuel, visits, trips, bookings and the daily facts together; costs: ev_energy and
 * the prices; utilisation: vehicle_activity; logbook: trips with odometer and drivers; fuel_drops:
 * fuel_level_history; site_visits: site_geofence_visits; carpool_departments: bookings with the
 * carpool vehicles; setup_health: carpool vehicles and drivers; coverage: ledger and day_coverage.
 * What reports read of `runs` (left out of the masked rows: the killed job's run is an extra
 * row by design) — the last run (kpis) and a snapshot that failed holding "complete through" back
 * (kpis, coverage) — is shown here too: the lake's runs are the worker file's, row for row.
 */
const LAKE_REPORTS = [
  'kpis',
  'costs',
  'utilisation',
  'logbook',
  'fuel_drops',
  'site_visits',
  'carpool_departments',
  'setup_health',
  'coverage',
];

interface Acct {
  name: string;
  fleet: Fleet;
  sim: SimulatorHandle;
  from: string;
  to: string;
}

let pg: TestPostgres;
let dir: string;
const accts: Acct[] = [];
let env: Record<string, string>;
const workers = workerProcesses(() => env);
/**
 * The single-process reference sync of each account, started in beforeAll: beside the workers and
 * each other (they share nothing, each its simulator and file), they wait on their rate-limit
 * windows together instead of one after the other.
 */
let refs: Promise<PromiseSettledResult<Database>[]> = Promise.resolve([]);
let refsClosed = false;

const { lines, until } = workers;
const doneAccounts = () =>
  new Set(lines(/job done/).map((l) => /account[=":\s]+"?([\w.-]+)/.exec(l.split('job done')[1]!)?.[1]));

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-workers-'));
  for (let i = 0; i < 6; i++) {
    const fleet = generateFleet({ seed: 100 + i, vehicles: 2 + (i % 3), days: 6 + i, endDay: '2026-04-20' });
    const sim = await startSimulator({ fleet, windowMs: 1000 });
    accts.push({
      name: `acct-${i}`,
      fleet,
      sim,
      from: localDate(fleet.startMs, fleet.timezone),
      to: localDate(fleet.endMs - 1, fleet.timezone),
    });
  }
  env = {
    ...simAccountsEnv(
      dir,
      pg.url,
      accts.map((a) => ({ name: a.name, baseUrl: a.sim.baseUrl, zone: a.fleet.timezone })),
    ),
    FLEETSYNC_LAKE_DIR: join(dir, 'lake'),
    FLEETSYNC_JOB_EXPIRE_SECONDS: String(EXPIRE_SECONDS),
    FLEETSYNC_LOG_LEVEL: 'debug', // a line per committed window is at debug
  };
  refs = Promise.allSettled(accts.map((a) => referenceOf(a)));
}, 120_000);

afterAll(async () => {
  workers.killAll();
  if (!refsClosed) for (const r of await refs) if (r.status === 'fulfilled') r.value.close();
  for (const a of accts) await a.sim.close();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The export with the facts of the runs themselves (run ids, and the times the runs started,
 * ended or fetched, all after the synced history) masked: two syncs differ there by design.
 * Everything else must match byte for byte.
 */
const withoutRunFacts = (csv: string) =>
  csv
    .replace(/\d{8}T\d{6}-[0-9a-f]{8}/g, '<run>')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})/g, (t) =>
      t.slice(0, 10) > '2026-04-21' ? '<time>' : t,
    );

/**
 * The lake-compared reports of an account as CSV. `meta` is the database's cache of the files'
 * facts (complete through, the last run), as the server keeps one.
 */
async function exportsOf(
  db: Database,
  a: Acct,
  nowMs: number,
  meta: MetaCache,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const con = await db.connect();
  try {
    for (const name of LAKE_REPORTS) {
      const def = requireReport(name);
      const scope = { account: a.name, zone: a.fleet.timezone, nowMs };
      const path = join(dir, `${a.name}-${name}-${Math.random()}.csv`);
      await exportReport(
        con,
        def,
        scope,
        parseReportParams({ from: a.from, to: a.to }, def, scope),
        'csv',
        path,
        { manifest: false, metaCache: meta },
      );
      out[name] = withoutRunFacts(readFileSync(path, 'utf8'));
      rmSync(path);
    }
  } finally {
    con.closeSync();
  }
  return out;
}

/** A run id or time (after the synced history), or the simulator's address, in a stored value. */
const maskValue = (v: unknown): unknown =>
  typeof v === 'string'
    ? /^\d{4}-\d{2}-\d{2}[T ]\d/.test(v) && v.slice(0, 10) > '2026-04-21'
      ? '<time>'
      : withoutRunFacts(v).replace(/http:\/\/(?:127\.0\.0\.1|localhost):\d+/g, '<sim>')
    : v;

/**
 * Every row an account has in every account-keyed table (the tables a lake publishes, so a new
 * table is compared without being listed here), each table's rows sorted. With `masked`, the
 * facts of the runs themselves are masked (run ids, times after the synced history, the
 * simulator's address) and `runs` is left out: two syncs differ there by design; of
 * `endpoint_access` only the refused endpoints count (what reports and alerts read): an endpoint
 * recorded `ok` is what one run happened to probe (a worker's file lacked the odometer endpoint's
 * `ok` row a single-process sync had, once in three runs). A row stored twice shows twice. A
 * booking's history keeps the order its statuses were seen in.
 */
async function accountRows(
  db: Database,
  account: string,
  masked: boolean,
): Promise<Record<string, string[]>> {
  const con = await db.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const t of await lakeTables(con)) {
      if (masked && t.name === 'runs') continue;
      const history = t.name === 'carpool_booking_history';
      const only = masked && t.name === 'endpoint_access' ? " AND state <> 'ok'" : '';
      const rows = (
        await con.runAndReadAll(
          `SELECT * FROM "${t.name}" WHERE account = $1${only} ORDER BY ${history ? 'booking_id, seen_at, booking_status, is_approved' : 'ALL'}`,
          [account],
        )
      ).getRowObjectsJson();
      const json = rows.map((r) =>
        JSON.stringify(masked ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, maskValue(v)])) : r),
      );
      out[t.name] = history ? json : json.sort();
    }
    return out;
  } finally {
    con.closeSync();
  }
}

async function referenceOf(a: Acct): Promise<Database> {
  const sim = await startSimulator({ fleet: a.fleet, windowMs: 1000 });
  const db = await openDatabase(join(dir, 'ref', `${a.name}.duckdb`));
  const log = memoryLogger('warn', ['demo-main']);
  const client = createFleetClient({
    now: Date.now,
    baseUrl: sim.baseUrl,
    username: 'demo',
    password: 'demo-main',
    timezone: a.fleet.timezone,
    windowMs: 1000,
    log,
  });
  try {
    const s = await runSync(
      {
        now: Date.now,
        db,
        client,
        account: a.name,
        timezone: a.fleet.timezone,
        baseUrl: sim.baseUrl,
        windowMs: 1000,
        log,
      },
      { trigger: 'cli', fromDay: FROM, toDay: TO },
    );
    expect(s.outcome).toBe('ok');
  } finally {
    await client.close();
    await sim.close();
  }
  return db;
}

describe('fleetsync worker: three workers, six accounts, one killed mid-job', () => {
  let victimAccount = '';

  it('syncs every account; a SIGKILLed job expires and another worker finishes it', async () => {
    for (let i = 0; i < 3; i++) workers.start();
    await until(() => lines(/worker ready/).length === 3, 60_000, 'three workers ready');
    const q = await runMain(env, 'worker', '--enqueue', '--from', FROM, '--to', TO);
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/queued 6 of 6/);
    // A worker is killed in the middle of a job: its latest job has committed a window and is not
    // done (a job is a second or two: the first worker seen so is the victim, whoever started first).
    const inProgress = (w: WorkerProcess) => {
      const at = w.log.findLastIndex((l) => /job started/.test(l));
      if (at < 0) return null;
      const account = /acct-\d/.exec(w.log[at]!)![0];
      const after = w.log.slice(at + 1);
      const busy = after.some((l) => / window /.test(l)) && !after.some((l) => /job done/.test(l));
      return busy ? account : null;
    };
    await until(() => workers.list.some((w) => inProgress(w) !== null), 60_000, 'a job in progress');
    const victim = workers.list.find((w) => inProgress(w) !== null)!;
    victimAccount = inProgress(victim)!;
    expect(victim.log.some((l) => /job done/.test(l) && l.includes(victimAccount))).toBe(false);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await until(() => doneAccounts().size === 6, 180_000, 'all six accounts done');
    const finishedAt = Date.now();
    // The victim's account was finished by another worker, after the expiry, within expiry + slack.
    const finisher = workers.list.find(
      (w) => w !== victim && w.log.some((l) => /job done/.test(l) && l.includes(victimAccount)),
    );
    expect(finisher).toBeDefined();
    // expired after EXPIRE_SECONDS (not the default 4 h), then finished: a minute's slack for a loaded machine
    expect(finishedAt - killedAt).toBeLessThan((EXPIRE_SECONDS + 60) * 1000);
    for (const a of accts) {
      const s = a.sim.stats();
      expect({
        account: a.name,
        rateLimited: Object.values(s.rateLimited).reduce((x, y) => x + y, 0),
      }).toEqual({
        account: a.name,
        rateLimited: 0,
      });
    }
  }, 300_000);

  it("each account's stored rows equal a single-process sync of the same simulator; the lake holds exactly each worker file's rows and exports the same reports", async () => {
    // A worker stops on SIGTERM: it takes no new job, and a job in progress is interrupted, published
    // and retried (the last test shows it). A job can still run here: one that outlived the short
    // expiry on a loaded machine is run again; its interrupted run is then in the lake too.
    workers.killAll('SIGTERM');
    await until(
      () => workers.list.every((w) => w.child.exitCode !== null || w.child.signalCode !== null),
      45_000,
      'workers stopped',
    );
    const nowMs = Date.now();
    const lake = await openLake(join(dir, 'lake'));
    const lakeMeta: MetaCache = new Map();
    const ref = await refs;
    try {
      expect(lakeAccounts(join(dir, 'lake'))).toEqual(accts.map((a) => a.name));
      for (const [i, a] of accts.entries()) {
        const r = ref[i]!;
        if (r.status === 'rejected') throw r.reason;
        const mine = await openDatabase(join(dir, 'data', 'accounts', `${a.name}.duckdb`));
        try {
          const expected = await accountRows(r.value, a.name, true);
          // the reference holds the account's history (the comparison is not of empty tables)
          for (const t of ['vehicles', 'trips', 'odometer_windows', 'fuel_consumed', 'ledger', 'daily_facts'])
            expect({ account: a.name, table: t, empty: expected[t]!.length === 0 }).toEqual({
              account: a.name,
              table: t,
              empty: false,
            });
          expect({ account: a.name, rows: await accountRows(mine, a.name, true) }).toEqual({
            account: a.name,
            rows: expected,
          });
          // The lake was published from the worker's file: the same rows, runs and times included.
          expect({ account: a.name, lake: await accountRows(lake, a.name, false) }).toEqual({
            account: a.name,
            lake: await accountRows(mine, a.name, false),
          });
          const reports = await exportsOf(r.value, a, nowMs, new Map());
          expect(Object.values(reports).some((csv) => csv.split('\n').length > 2)).toBe(true);
          expect(await exportsOf(lake, a, nowMs, lakeMeta)).toEqual(reports);
        } finally {
          mine.close();
        }
      }
    } finally {
      for (const r of ref) if (r.status === 'fulfilled') r.value.close();
      refsClosed = true;
      lake.close();
    }
  }, 420_000);

  it("a worker asked to stop (SIGTERM) in the middle of a job publishes the interrupted run: the lake holds exactly its file's rows, the job is recorded failed and retrying", async () => {
    // Its own account, queue database and lake. Mid-job for certain, not by timing: the job's 20th
    // request (of its 56, past the snapshots) is held unanswered, and the client waits for it as
    // long as the setting allows (10 minutes); the worker is stopped once it holds it and has
    // committed a window, and the held request is let go (the simulator closes) only after the
    // worker has said it was asked to stop.
    const stopDir = join(dir, 'stop');
    mkdirSync(stopDir);
    const admin = new postgres.Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE fleetsync_stop');
    await admin.end();
    const fleet = generateFleet({ seed: 106, vehicles: 3, days: 6, endDay: '2026-04-20' });
    const sim = await startSimulator({ fleet, windowMs: 1000, faults: { hangEvery: 20 } });
    let simOpen = true;
    const stopEnv = {
      ...simAccountsEnv(stopDir, pg.url.replace(/\/fleetsync$/, '/fleetsync_stop'), [
        { name: 'acct-stop', baseUrl: sim.baseUrl, zone: fleet.timezone },
      ]),
      FLEETSYNC_LAKE_DIR: join(stopDir, 'lake'),
      FLEETSYNC_HTTP_TIMEOUT_MS: '600000',
      FLEETSYNC_LOG_LEVEL: 'debug',
    };
    const pool = workerProcesses(() => stopEnv);
    try {
      const w = pool.start();
      await pool.until(() => pool.lines(/worker ready/).length === 1, 60_000, 'the worker ready');
      expect((await runMain(stopEnv, 'worker', '--enqueue', '--from', FROM, '--to', TO)).code).toBe(0);
      await pool.until(
        () => sim.stats().faults.hang > 0 && pool.lines(/ window /).length > 0,
        60_000,
        'a request held and a window committed',
      );
      w.child.kill('SIGTERM');
      await pool.until(() => pool.lines(/worker asked to stop/).length > 0, 30_000, 'the stop heard');
      expect(pool.lines(/job done/)).toEqual([]);
      await sim.close();
      simOpen = false;
      expect(await w.exit).toBe(0);

      const mine = await openDatabase(join(stopDir, 'data', 'accounts', 'acct-stop.duckdb'));
      const lake = await openLake(join(stopDir, 'lake'));
      try {
        const runs = (await accountRows(mine, 'acct-stop', false)).runs!.map((r) => JSON.parse(r));
        expect(runs.map((r) => r.outcome)).toEqual(['partial']);
        expect(JSON.stringify(runs[0].errors)).toMatch(/interrupted: the run was asked to stop/);
        // it had committed windows: the lake holds the rows the run wrote, not only its row
        expect((await accountRows(mine, 'acct-stop', false)).ledger!.length).toBeGreaterThan(0);
        expect({ lake: await accountRows(lake, 'acct-stop', false) }).toEqual({
          lake: await accountRows(mine, 'acct-stop', false),
        });
      } finally {
        mine.close();
        lake.close();
      }
      const outcome = readOutcome(join(stopDir, 'lake'), 'acct-stop')!;
      expect(outcome.published_at).not.toBeNull();
      expect(outcome.last_job).toMatchObject({ outcome: 'failed', attempt: 1, retrying: true });
      expect(outcome.last_job!.error).toMatch(/interrupted: the run was asked to stop.*retry resumes it/);

      // The retry, by a new worker (the API back, at a new address), publishes only the partitions
      // its run changed over the interrupted run's publish; an operator's --full-publish job
      // rewrites every one. Either way the lake holds exactly the file's rows.
      const sim2 = await startSimulator({ fleet, windowMs: 1000 });
      try {
        Object.assign(
          stopEnv,
          simAccountsEnv(stopDir, pg.url.replace(/\/fleetsync$/, '/fleetsync_stop'), [
            { name: 'acct-stop', baseUrl: sim2.baseUrl, zone: fleet.timezone },
          ]),
        );
        pool.start();
        await pool.until(() => pool.lines(/job done/).length === 1, 90_000, 'the retry done');
        const lakeFiles = () => {
          const dir = join(stopDir, 'lake', 'trips', 'account=acct-stop');
          return readdirSync(dir).map((m) => `${m}:${statSync(join(dir, m, 'data.parquet')).ino}`);
        };
        const afterRetry = lakeFiles();
        expect(
          (await runMain(stopEnv, 'worker', '--enqueue', '--from', FROM, '--to', TO, '--full-publish')).code,
        ).toBe(0);
        await pool.until(() => pool.lines(/job done/).length === 2, 90_000, 'the full publish done');
        const published = pool.lines(/lake published/);
        expect(published).toHaveLength(3); // the interrupted run, the retry, the full publish
        expect(published[1]).toMatch(/kept[=":\s]+[1-9]/);
        expect(published[1]).not.toMatch(/full[=":\s]/);
        expect(published[2]).toMatch(/kept[=":\s]+0\b/);
        expect(published[2]).toMatch(/full[=":\s]+"?asked/);
        // every trips file is new (another inode), month for month
        const afterFull = lakeFiles();
        expect(afterFull.map((f) => f.split(':')[0])).toEqual(afterRetry.map((f) => f.split(':')[0]));
        expect(afterFull.filter((f) => afterRetry.includes(f))).toEqual([]);
        pool.killAll('SIGTERM');
        await Promise.all(pool.list.map((p) => p.exit));
        const [mine, lake] = [
          await openDatabase(join(stopDir, 'data', 'accounts', 'acct-stop.duckdb')),
          await openLake(join(stopDir, 'lake')),
        ];
        try {
          const rows = await accountRows(mine, 'acct-stop', false);
          expect(rows.runs!.map((r) => JSON.parse(r).outcome).sort()).toEqual(['ok', 'ok', 'partial']);
          expect({ lake: await accountRows(lake, 'acct-stop', false) }).toEqual({ lake: rows });
        } finally {
          mine.close();
          lake.close();
        }
      } finally {
        await sim2.close();
      }
    } finally {
      pool.killAll();
      if (simOpen) await sim.close();
    }
  }, 240_000);
});
