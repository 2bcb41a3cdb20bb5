/**
 * Worker mode (FLEETSYNC_QUEUE_URL): "sync account X" jobs in Postgres through pg-boss.
 *
 * - queue `fleetsync-sync`, policy 'stately' with singletonKey = account: at most one job of an
 *   account queued and one running, on however many workers; retries with backoff, then the
 *   dead-letter queue `fleetsync-dead`. A job that runs past its expiry (a worker killed mid-job)
 *   is failed by pg-boss's maintenance and retried by another worker; the window ledger in the
 *   account's file makes the resume exact.
 * - queue `fleetsync-tick`, fed by pg-boss cron (FLEETSYNC_SCHEDULE, kept in Postgres, so it fires
 *   once per tick however many workers run): a tick sends one sync job per account.
 * - each account has its own DuckDB file `<data dir>/accounts/<account>.duckdb`; after each job
 *   the worker publishes the account's tables to the Parquet lake (FLEETSYNC_LAKE_DIR).
 *
 * pg-boss and pg are imported here only, and this module only in worker mode.
 */
import { join } from 'node:path';
import type { AccountConfig } from '../accounts.ts';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { checkLakeDir, publishAccount } from '../lake/publish.ts';
import { openDatabase } from '../store/db.ts';
import { accountStreams, syncAccount, wireAccount } from '../wiring.ts';

export const SYNC_QUEUE = 'fleetsync-sync';
export const TICK_QUEUE = 'fleetsync-tick';
export const DEAD_QUEUE = 'fleetsync-dead';

export interface WorkerSettings {
  queueUrl: string;
  dataDir: string;
  lakeDir: string | null;
  /** Seconds a job may run before it counts as lost and is retried elsewhere. */
  expireSeconds: number;
  retryLimit: number;
  retryDelaySeconds: number;
  /** How often pg-boss's maintenance looks for expired jobs. */
  maintenanceSeconds: number;
  pollSeconds: number;
  /** How often pg-boss looks at the schedule (a tick fires within this after its minute). */
  cronSeconds: number;
}

/** Reads the worker settings from the environment; every problem names its variable. */
export function workerSettings(
  env: Record<string, string | undefined>,
  config: Readonly<Config>,
): WorkerSettings {
  const problems: string[] = [];
  const queueUrl = env.FLEETSYNC_QUEUE_URL?.trim() ?? '';
  if (!/^postgres(ql)?:\/\//.test(queueUrl))
    problems.push('FLEETSYNC_QUEUE_URL: set a Postgres URL (postgres://user:password@host:5432/db)');
  const num = (name: string, dflt: number, min: number) => {
    const v = env[name]?.trim();
    if (!v) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min)
      problems.push(`${name}: a number ≥ ${min} (got ${JSON.stringify(v)})`);
    return n;
  };
  const s: WorkerSettings = {
    queueUrl,
    dataDir: env.FLEETSYNC_DATA_DIR?.trim() || join(config.dbPath, '..'),
    lakeDir: env.FLEETSYNC_LAKE_DIR?.trim() || null,
    expireSeconds: num('FLEETSYNC_JOB_EXPIRE_SECONDS', 4 * 3600, 1),
    retryLimit: num('FLEETSYNC_JOB_RETRIES', 3, 0),
    retryDelaySeconds: num('FLEETSYNC_JOB_RETRY_DELAY_SECONDS', 60, 0),
    maintenanceSeconds: num('FLEETSYNC_QUEUE_MAINTENANCE_SECONDS', 60, 1),
    pollSeconds: num('FLEETSYNC_QUEUE_POLL_SECONDS', 2, 0.5),
    cronSeconds: Math.min(45, num('FLEETSYNC_QUEUE_CRON_SECONDS', 30, 1)),
  };
  if (problems.length)
    throw new FleetsyncError('E_CONFIG', `invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return s;
}

/** A Postgres connection failure as an error naming the setting, without the password. */
function queueError(e: unknown, url: string): FleetsyncError {
  const err = e as { code?: string; message?: string };
  let where = 'the queue database';
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    /* the URL was checked before */
  }
  const why =
    err.code === '28P01' || err.code === '28000'
      ? 'Postgres refused the user name or password'
      : err.code === '3D000'
        ? 'no such database'
        : err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'ETIMEDOUT'
          ? `cannot reach Postgres (${err.code})`
          : `cannot use Postgres (${err.code ?? ''} ${err.message ?? String(e)})`.replace(url, '<url>');
  return new FleetsyncError('E_CONFIG', `FLEETSYNC_QUEUE_URL (${where}): ${why}`, { cause: e });
}

export interface WorkerDeps {
  config: Readonly<Config>;
  accounts: AccountConfig[];
  settings: WorkerSettings;
  log: Logger;
  signal: AbortSignal;
}

type Boss = InstanceType<typeof import('pg-boss')>;
type QueueOptions = import('pg-boss').Queue;

async function connect(deps: WorkerDeps, schedule: { cron: string; tz: string } | null): Promise<Boss> {
  const { default: PgBoss } = await import('pg-boss');
  const s = deps.settings;
  const boss = new PgBoss({
    connectionString: s.queueUrl,
    application_name: 'fleetsync-worker',
    maintenanceIntervalSeconds: s.maintenanceSeconds,
    cronMonitorIntervalSeconds: s.cronSeconds,
    cronWorkerIntervalSeconds: s.cronSeconds,
    max: 4,
  });
  // pg-boss reports connection trouble after start here (it reconnects by itself); start-up
  // failures reach the catch below.
  boss.on('error', (e) => {
    deps.log.warn('queue error', { error: describeError(e) });
  });
  // Workers that start together would otherwise create, update and schedule the same queues at
  // once, and Postgres answers one of them "deadlock detected". One session-level advisory lock
  // makes the set-up one worker after another; the lock goes with the session if a worker dies.
  const { default: pg } = await import('pg');
  const guard = new pg.Client({ connectionString: s.queueUrl, application_name: 'fleetsync-worker-setup' });
  guard.on('error', () => {});
  try {
    await guard.connect();
    await guard.query('select pg_advisory_lock($1)', [SETUP_LOCK]);
    await boss.start();
  } catch (e) {
    await guard.end().catch(() => {});
    await boss.stop({ graceful: false, wait: false }).catch(() => {});
    throw queueError(e, s.queueUrl);
  }
  try {
    await setUpQueues(boss, s);
    if (schedule) await boss.schedule(TICK_QUEUE, schedule.cron, {}, { tz: schedule.tz });
  } catch (e) {
    await boss.stop({ graceful: false, wait: false }).catch(() => {});
    throw e;
  } finally {
    await guard.end().catch(() => {});
  }
  return boss;
}

/** Any fixed number: the key of the advisory lock that makes queue set-up one worker at a time. */
const SETUP_LOCK = 0x666c7379; // 'flsy'

async function setUpQueues(boss: Boss, s: WorkerSettings): Promise<void> {
  const ensure = async (name: string, opts: QueueOptions) => {
    if (await boss.getQueue(name)) await boss.updateQueue(name, opts);
    else
      await boss.createQueue(name, opts).catch(async (e) => {
        if (!(await boss.getQueue(name))) throw e; // another worker created it first
      });
  };
  await ensure(DEAD_QUEUE, { name: DEAD_QUEUE });
  await ensure(TICK_QUEUE, { name: TICK_QUEUE, policy: 'singleton' });
  await ensure(SYNC_QUEUE, {
    name: SYNC_QUEUE,
    policy: 'stately',
    retryLimit: s.retryLimit,
    retryDelay: s.retryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: s.expireSeconds,
    deadLetter: DEAD_QUEUE,
  });
}

/** A job: the account, and optionally the days (default: what the sync would pick itself). */
export interface SyncJob {
  account: string;
  fromDay?: string;
  toDay?: string;
}

/** Sends one sync job per account (an account already queued is not queued twice). */
async function enqueueAll(
  boss: Boss,
  accounts: AccountConfig[],
  range: { fromDay?: string | undefined; toDay?: string | undefined } = {},
): Promise<number> {
  let sent = 0;
  for (const a of accounts) {
    const job: SyncJob = {
      account: a.account,
      ...(range.fromDay ? { fromDay: range.fromDay } : {}),
      ...(range.toDay ? { toDay: range.toDay } : {}),
    };
    if (await boss.send(SYNC_QUEUE, job, { singletonKey: a.account })) sent++;
  }
  return sent;
}

/** One job: sync the account into its own file, then publish it to the lake. */
export async function syncAccountJob(deps: WorkerDeps, job: SyncJob, jobId: string): Promise<void> {
  const { account } = job;
  const a = deps.accounts.find((x) => x.account === account);
  if (!a) throw new FleetsyncError('E_CONFIG', `job ${jobId}: account ${account} is not in FLEETSYNC_CONFIG`);
  const { config, settings, log } = deps;
  const db = await openDatabase(join(settings.dataDir, 'accounts', `${account}.duckdb`));
  const { client, deps: syncDeps } = wireAccount(db, a, config, log, { signal: deps.signal });
  try {
    log.info('job started', { job: jobId, account });
    const summary = await syncAccount(syncDeps, {
      trigger: 'schedule',
      ...accountStreams(a),
      ...(job.fromDay ? { fromDay: job.fromDay } : {}),
      ...(job.toDay ? { toDay: job.toDay } : {}),
    });
    if (summary.outcome !== 'ok')
      throw new FleetsyncError(
        'E_SYNC_PARTIAL',
        `account ${account}: sync ${summary.outcome}; the retry resumes it`,
      );
    if (settings.lakeDir) {
      const con = await db.connect();
      try {
        const p = await publishAccount(con, account, settings.lakeDir);
        log.info('lake published', { account, files: p.files, removed: p.removed });
      } finally {
        con.closeSync();
      }
    }
    log.info('job done', { job: jobId, account, run: summary.run_id, outcome: summary.outcome });
  } finally {
    await client.close();
    db.close();
  }
}

export interface WorkerOptions {
  /** Only queue one job per account (over these days, when given), then return. */
  enqueue?: boolean;
  fromDay?: string | undefined;
  toDay?: string | undefined;
}

/** Runs a worker until the signal aborts (or, with `enqueue`, queues the accounts and returns). */
export async function runWorker(deps: WorkerDeps, opts: WorkerOptions = {}): Promise<string> {
  if (deps.settings.lakeDir) checkLakeDir(deps.settings.lakeDir);
  const schedule =
    !opts.enqueue && deps.config.schedule ? { cron: deps.config.schedule, tz: deps.config.timezone } : null;
  const boss = await connect(deps, schedule);
  try {
    if (opts.enqueue) {
      const n = await enqueueAll(boss, deps.accounts, opts);
      return `queued ${n} of ${deps.accounts.length} account(s) (an account already queued is not queued again)`;
    }
    const poll = { pollingIntervalSeconds: deps.settings.pollSeconds, batchSize: 1 };
    await boss.work(TICK_QUEUE, poll, async () => {
      const n = await enqueueAll(boss, deps.accounts);
      deps.log.info('scheduled tick', { queued: n });
    });
    await boss.work<SyncJob>(SYNC_QUEUE, poll, async (jobs) => {
      const job = jobs[0];
      if (job) await syncAccountJob(deps, job.data, job.id);
    });
    deps.log.info('worker ready', { accounts: deps.accounts.length });
    await new Promise<void>((resolve) => {
      if (deps.signal.aborted) resolve();
      else deps.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return 'worker stopped';
  } finally {
    await boss.stop({ graceful: true, wait: true, timeout: 30_000 }).catch(() => {});
  }
}
