/**
 * Worker mode with real components: an embedded Postgres, six simulator accounts (each its own
 * simulator with its own rate-limit buckets), three `fleetsync worker` child processes. One worker
 * is SIGKILLed in the middle of a job; its job expires and another worker resumes it. Every
 * account's report exports are byte-equal to a single-process sync of the same simulator, no
 * simulator saw a genuine 429, and the lake holds every account with the same report figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
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
const workers: { child: ChildProcess; log: string[] }[] = [];
let env: Record<string, string>;

function startWorker(extra: Record<string, string> = {}): { child: ChildProcess; log: string[] } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'worker'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, ...extra },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const w = { child, log: [] as string[] };
  let buf = '';
  child.stderr!.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      w.log.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
  workers.push(w);
  return w;
}

const lines = (re: RegExp) => workers.flatMap((w) => w.log.filter((l) => re.test(l)));
const doneAccounts = () =>
  new Set(lines(/job done/).map((l) => /account[=":\s]+"?([\w.-]+)/.exec(l.split('job done')[1]!)?.[1]));

async function until(cond: () => boolean, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}\n${workers.map((w) => w.log.slice(-15).join('\n')).join('\n---\n')}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

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
  const config = join(dir, 'accounts.json');
  writeFileSync(
    config,
    JSON.stringify({
      accounts: accts.map((a) => ({
        account: a.name,
        base_url: a.sim.baseUrl,
        username: 'demo',
        password_env: 'SIM_PASSWORD',
        timezone: a.fleet.timezone,
      })),
    }),
  );
  env = {
    FLEETSYNC_QUEUE_URL: pg.url,
    FLEETSYNC_CONFIG: config,
    SIM_PASSWORD: 'demo-main',
    FLEETSYNC_DATA_DIR: join(dir, 'data'),
    FLEETSYNC_LAKE_DIR: join(dir, 'lake'),
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    FLEETSYNC_JOB_EXPIRE_SECONDS: String(EXPIRE_SECONDS),
    FLEETSYNC_JOB_RETRY_DELAY_SECONDS: '1',
    FLEETSYNC_QUEUE_MAINTENANCE_SECONDS: '1',
    FLEETSYNC_QUEUE_POLL_SECONDS: '0.5',
    FLEETSYNC_LOG_LEVEL: 'debug', // a line per committed window is at debug
  };
}, 120_000);

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
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
    for (let i = 0; i < 3; i++) startWorker();
    await until(() => lines(/worker ready/).length === 3, 60_000, 'three workers ready');
    const first = workers[0]!;
    const q = await runMain(env, 'worker', '--enqueue', '--from', FROM, '--to', TO);
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/queued 6 of 6/);
    // A worker is killed in the middle of a job: its latest job has committed a window and is not
    // done (a job is a second or two: the first worker seen so is the victim, whoever started first).
    const inProgress = (w: (typeof workers)[number]) => {
      const at = w.log.findLastIndex((l) => /job started/.test(l));
      if (at < 0) return null;
      const account = /acct-\d/.exec(w.log[at]!)![0];
      const after = w.log.slice(at + 1);
      const busy = after.some((l) => / window /.test(l)) && !after.some((l) => /job done/.test(l));
      return busy ? account : null;
    };
    await until(() => workers.some((w) => inProgress(w) !== null), 60_000, 'a job in progress');
    const victim = workers.find((w) => inProgress(w) !== null)!;
    void first;
    victimAccount = inProgress(victim)!;
    expect(victim.log.some((l) => /job done/.test(l) && l.includes(victimAccount))).toBe(false);
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await until(() => doneAccounts().size === 6, 180_000, 'all six accounts done');
    const finishedAt = Date.now();
    // The victim's account was finished by another worker, after the expiry, within expiry + slack.
    const finisher = workers.find(
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
    for (const w of workers) w.child.kill('SIGTERM');
    await until(
      () => workers.every((w) => w.child.exitCode !== null || w.child.signalCode !== null),
      45_000,
      'workers stopped',
    );
    const nowMs = Date.now();
    const lake = await openLake(join(dir, 'lake'));
    const lakeMeta: MetaCache = new Map();
    // The six reference syncs share nothing (each its simulator and file): side by side, they wait
    // on their rate-limit windows together instead of one after the other.
    const refs = await Promise.allSettled(accts.map((a) => referenceOf(a)));
    try {
      expect(lakeAccounts(join(dir, 'lake'))).toEqual(accts.map((a) => a.name));
      for (const [i, a] of accts.entries()) {
        const r = refs[i]!;
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
      for (const r of refs) if (r.status === 'fulfilled') r.value.close();
      lake.close();
    }
  }, 420_000);

  it('a scheduled tick (pg-boss cron, in Postgres) runs each account exactly once across three workers', async () => {
    workers.length = 0;
    // The 12 s expiry of the kill test would let pg-boss expire a job that a loaded machine runs
    // longer and hand it to a second worker (at-least-once, by design: two "job done" lines for one
    // queued job); this test is about the schedule, so its jobs get time (updateQueue applies it).
    for (let i = 0; i < 3; i++)
      startWorker({
        FLEETSYNC_SCHEDULE: '* * * * *',
        FLEETSYNC_QUEUE_CRON_SECONDS: '1',
        FLEETSYNC_JOB_EXPIRE_SECONDS: '600',
      });
    await until(() => lines(/worker ready/).length === 3, 60_000, 'three workers ready');
    const t0 = Date.now();
    await until(() => lines(/scheduled tick/).length >= 1, 75_000, 'a scheduled tick');
    // A tick queues every account that is not queued already (a slow machine may still be busy
    // with the last tick's jobs when the next minute fires): wait until every job queued so far ran.
    const queued = () =>
      lines(/scheduled tick/).reduce((n, l) => n + Number(/queued=(\d+)/.exec(l)?.[1] ?? NaN), 0);
    await until(
      () => lines(/job done/).length >= 6 && lines(/job done/).length === queued(),
      300_000,
      'the tick’s jobs',
    );
    for (const w of workers) w.child.kill('SIGKILL');
    const ticks = lines(/scheduled tick/);
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(t0 / 60_000) + 1;
    // Once per minute in all, not once per worker (three workers would give three per minute).
    expect(ticks.length).toBeLessThanOrEqual(minutes);
    // Every job a tick queued ran once; every account ran, and never more than once per tick.
    const done = lines(/job done/);
    expect(done.length).toBe(queued());
    for (const a of accts) {
      const jobs = done.filter((l) => new RegExp(`\\b${a.name}\\b`).test(l)).length;
      expect({ a: a.name, once: jobs >= 1, atMostPerTick: jobs <= ticks.length }).toEqual({
        a: a.name,
        once: true,
        atMostPerTick: true,
      });
    }
    for (const a of accts)
      expect(Object.values(a.sim.stats().rateLimited).reduce((x, y) => x + y, 0)).toBe(0);
  }, 480_000);
});
