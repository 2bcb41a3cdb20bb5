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
 *   the worker publishes the account's tables to the Parquet lake (FLEETSYNC_LAKE_DIR) and alerts
 *   as serve does (src/worker/jobs.ts); the dead-letter queue is read too: a given-up job alerts.
 * - the worker fetches and records jobs itself (not pg-boss's work(), whose completion call is
 *   not awaited: a Postgres blip there was an unhandled rejection that killed the process).
 *   Recording a completion or failure, and the heartbeat between jobs, are retried through an
 *   outage of up to FLEETSYNC_QUEUE_OUTAGE_SECONDS (queue-calls.ts); a longer outage, or Postgres
 *   down at start, stops the worker with E_QUEUE_DOWN (exit 75, restartable). A job whose
 *   completion could not be recorded stays active until it expires and is retried; its sync
 *   resumes from the ledger.
 *
 * pg-boss and pg are imported here only, and this module only in worker mode.
 */
import type { AccountConfig } from '../accounts.ts';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError, isFleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { expectAccount } from '../lake/outcomes.ts';
import { checkLakeDir } from '../lake/publish.ts';
import { loadSql } from '../store/queries.ts';
import {
  DEAD_QUEUE,
  deadLetterJob,
  noRetry,
  syncAccountJob,
  type FailedOutput,
  type JobDeps,
  type WorkerSettings,
  type SyncJob,
} from './jobs.ts';
import { isQueueConnectionError, queueCall, sleepFor } from './queue-calls.ts';

export { DEAD_QUEUE, syncAccountJob, type SyncJob, type WorkerSettings };
export const SYNC_QUEUE = 'fleetsync-sync';
export const TICK_QUEUE = 'fleetsync-tick';

/** The worker's settings from the parsed configuration: worker mode needs the queue's URL. */
export function workerSettings(config: Readonly<Config>): WorkerSettings {
  const queueUrl = config.worker.queueUrl;
  if (!queueUrl)
    throw new FleetsyncError('E_CONFIG', 'FLEETSYNC_QUEUE_URL: worker mode needs a Postgres URL');
  return { ...config.worker, queueUrl };
}

/**
 * A Postgres failure at start as an error naming the setting, without the password: unreachable
 * is E_QUEUE_DOWN (transient: exit 75, a service manager restarts), the rest E_CONFIG (exit 2).
 */
function queueError(e: unknown, url: string): FleetsyncError {
  const err = e as { code?: string; message?: string };
  let where = 'the queue database';
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    /* the URL was checked before */
  }
  if (isQueueConnectionError(e))
    return new FleetsyncError(
      'E_QUEUE_DOWN',
      `FLEETSYNC_QUEUE_URL (${where}): cannot reach Postgres (${err.code ?? err.message ?? 'no answer'}); ` +
        `try again when it is up (exit 75: a service manager restarts the worker)`,
      { cause: e },
    );
  const why =
    err.code === '28P01' || err.code === '28000'
      ? 'Postgres refused the user name or password'
      : err.code === '3D000'
        ? 'no such database'
        : err.code === 'ENOTFOUND'
          ? `cannot reach Postgres (${err.code}: no such host)`
          : `cannot use Postgres (${err.code ?? ''} ${err.message ?? String(e)})`.replace(url, '<url>');
  return new FleetsyncError('E_CONFIG', `FLEETSYNC_QUEUE_URL (${where}): ${why}`, { cause: e });
}

export interface WorkerDeps extends JobDeps {
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
  // A dead letter keeps the retry limit of its job; the worker reads it to alert (jobs.ts).
  await ensure(DEAD_QUEUE, { name: DEAD_QUEUE, retryDelay: 30, retryBackoff: true });
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

/** Sends one sync job per account (an account already queued is not queued twice). */
async function enqueueAll(
  boss: Boss,
  accounts: AccountConfig[],
  range: { fromDay?: string | undefined; toDay?: string | undefined; fullPublish?: boolean } = {},
): Promise<number> {
  let sent = 0;
  for (const a of accounts) {
    const job: SyncJob = {
      account: a.account,
      ...(range.fromDay ? { fromDay: range.fromDay } : {}),
      ...(range.toDay ? { toDay: range.toDay } : {}),
      ...(range.fullPublish ? { fullPublish: true } : {}),
    };
    if (await boss.send(SYNC_QUEUE, job, { singletonKey: a.account })) sent++;
  }
  return sent;
}

export interface WorkerOptions {
  /** Only queue one job per account (over these days, when given), then return. */
  enqueue?: boolean;
  fromDay?: string | undefined;
  toDay?: string | undefined;
  /** The queued jobs rewrite every partition of their account in the lake (not only the changed ones). */
  fullPublish?: boolean;
}

/** A fetched job with pg-boss's metadata (fetch with includeMetadata). */
interface Fetched {
  id: string;
  data: unknown;
  retryCount: number;
  retryLimit: number;
  output?: unknown;
}

type Outcome = { ok: true; output: object } | { ok: false; output: FailedOutput; retry: boolean };

/** Runs a worker until the signal aborts (or, with `enqueue`, queues the accounts and returns). */
export async function runWorker(deps: WorkerDeps, opts: WorkerOptions = {}): Promise<string> {
  const lake = deps.settings.lakeDir;
  if (lake) checkLakeDir(lake);
  const schedule =
    !opts.enqueue && deps.config.schedule ? { cron: deps.config.schedule, tz: deps.config.timezone } : null;
  // pg-boss's own timers (maintenance, cron) may meet an outage mid-call; what they do not catch
  // is a connection error to ride out, not a reason to die (anything else still is).
  const stray = (e: unknown) => {
    if (!isQueueConnectionError(e)) throw e;
    deps.log.warn('queue error', { error: describeError(e) });
  };
  process.on('unhandledRejection', stray);
  let boss: Boss | null = null;
  try {
    boss = await connect(deps, schedule);
    if (opts.enqueue) {
      const n = await enqueueAll(boss, deps.accounts, opts);
      return `queued ${n} of ${deps.accounts.length} account(s) (an account already queued is not queued again)`;
    }
    // Every configured account is expected in the lake: one that never publishes shows as such.
    if (lake) for (const a of deps.accounts) expectAccount(lake, a.account);
    deps.log.info('worker ready', { accounts: deps.accounts.length });
    // Said when it happens: a job in progress is interrupted (published, recorded, retried: jobs.ts).
    deps.signal.addEventListener(
      'abort',
      () =>
        deps.log.info(
          'worker asked to stop: it takes no new job; a sync in progress sends no new request, is published and retried',
        ),
      { once: true },
    );
    await workLoop(boss, deps).catch((e: unknown) => {
      // Stopped (SIGTERM) while Postgres was away: a job not recorded expires and is retried.
      if (!(isFleetsyncError(e, 'E_QUEUE_DOWN') && e.details?.stopped)) throw e;
      deps.log.warn('worker stopped with the queue database unreachable', { error: e.message });
    });
    return 'worker stopped';
  } finally {
    await boss?.stop({ graceful: true, wait: true, timeout: 30_000 }).catch(() => {});
    process.off('unhandledRejection', stray);
  }
}

/**
 * One job at a time: a tick, a sync job, a dead letter. Between rounds the heartbeat checks the
 * queue database; a round with nothing to do waits the poll interval.
 */
async function workLoop(boss: Boss, deps: WorkerDeps): Promise<void> {
  const calls = {
    outageMs: deps.settings.outageSeconds * 1000,
    log: deps.log,
    signal: deps.signal,
    now: deps.now,
  };
  const handlers: [string, (job: Fetched) => Promise<Outcome>][] = [
    [
      TICK_QUEUE,
      async () => {
        const n = await enqueueAll(boss, deps.accounts);
        deps.log.info('scheduled tick', { queued: n });
        return { ok: true, output: { queued: n } };
      },
    ],
    [SYNC_QUEUE, (job) => runSyncJob(deps, job)],
    [DEAD_QUEUE, (job) => runDeadLetter(deps, job)],
  ];
  while (!deps.signal.aborted) {
    await queueCall('check the queue (heartbeat)', () => boss.getQueue(SYNC_QUEUE), calls);
    let worked = false;
    for (const [queue, handle] of handlers) {
      if (deps.signal.aborted) break;
      const [job] = (await boss.fetch(queue, {
        batchSize: 1,
        includeMetadata: true,
      })) as unknown as Fetched[];
      if (!job) continue;
      worked = true;
      const outcome = await handle(job).catch((e: unknown): Outcome => ({
        ok: false,
        output: failedOutput(e, job, true),
        retry: true,
      }));
      await recordOutcome(boss, queue, job, outcome, calls);
    }
    if (!worked) await sleepFor(deps.settings.pollSeconds * 1000, deps.signal);
  }
}

function failedOutput(e: unknown, job: Fetched, retry: boolean): FailedOutput {
  return {
    message: describeError(e),
    code: (e as { code?: string }).code ?? 'E_UNKNOWN',
    account: String((job.data as Partial<SyncJob> | null)?.account ?? ''),
    job: job.id,
    attempt: job.retryCount + 1,
    retrying: retry && job.retryCount < job.retryLimit,
  };
}

async function runSyncJob(deps: WorkerDeps, job: Fetched): Promise<Outcome> {
  const attempt = { id: job.id, attempt: job.retryCount + 1, retriesLeft: job.retryCount < job.retryLimit };
  try {
    await syncAccountJob(deps, job.data as SyncJob, job.id, attempt);
    return { ok: true, output: { account: (job.data as SyncJob).account } };
  } catch (e) {
    const retry = !noRetry(e);
    const output = failedOutput(e, job, retry);
    deps.log.error('job failed', {
      job: job.id,
      account: output.account,
      attempt: output.attempt,
      retrying: output.retrying,
      error: output.message,
    });
    return { ok: false, output, retry };
  }
}

async function runDeadLetter(deps: WorkerDeps, job: Fetched): Promise<Outcome> {
  try {
    await deadLetterJob(deps, job.data as SyncJob, job.output, job.id);
  } catch (e) {
    // Tried again (within the dead letter's retries) with the given-up job's error kept.
    deps.log.error('dead letter not handled', { job: job.id, error: describeError(e) });
    return { ok: false, output: job.output as FailedOutput, retry: true };
  }
  return { ok: true, output: { ...(job.output as object | null), alerted_at: new Date().toISOString() } };
}

/** Completes or fails the job, through an outage of up to the bound (then E_QUEUE_DOWN). */
async function recordOutcome(
  boss: Boss,
  queue: string,
  job: Fetched,
  o: Outcome,
  calls: Parameters<typeof queueCall>[2],
): Promise<void> {
  if (o.ok) {
    await queueCall(`complete job ${job.id}`, () => boss.complete(queue, job.id, o.output), calls);
    return;
  }
  if (!o.retry)
    await queueCall(
      `give up job ${job.id}`,
      () => boss.getDb().executeSql(loadSql('worker/no_retry'), [queue, job.id]),
      calls,
    );
  await queueCall(`fail job ${job.id}`, () => boss.fail(queue, job.id, o.output), calls);
}
