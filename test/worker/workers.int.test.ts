/**
 * Worker mode with real components: an embedded Postgres, six simulator accounts (each its own
 * simulator with its own rate-limit buckets), three `fleetsync worker` child processes. One worker
 * is SIGKILLed in the middle of a job; its job expires and another worker resumes it. Every
 * account's report exports are byte-equal to a single-process sync of the same simulator, no
 * simulator saw a genuine 429, and the lake holds every account with the same report figures.
 * The workers' schedule (pg-boss cron) is schedule.int's test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import { memoryLogger } from '../../src/log.ts';
import { lakeAccounts, openLake } from '../../src/lake/read.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
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
/** `runs` lists run ids and times, which differ between any two runs by design. */
const COMPARED = REPORT_NAMES.filter((n) => n !== 'runs');

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
 * Every compared report of an account as CSV. `meta` is the database's cache of the files' facts
 * (complete through, the last run), as the server keeps one: the CSV compared here holds none of
 * them, and without it each of the 684 exports asked them again (half of their CPU).
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
    for (const name of COMPARED) {
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

  it("each account's exports are byte-equal to a single-process sync of the same simulator, from its file and from the lake", async () => {
    // A worker stops on SIGTERM (pg-boss stops polling and lets a running job finish).
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
          const expected = await exportsOf(r.value, a, nowMs, new Map());
          expect(Object.values(expected).some((csv) => csv.split('\n').length > 2)).toBe(true);
          expect(await exportsOf(mine, a, nowMs, new Map())).toEqual(expected);
          expect(await exportsOf(lake, a, nowMs, lakeMeta)).toEqual(expected);
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
});
