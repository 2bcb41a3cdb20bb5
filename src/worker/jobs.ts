/**
 * What a worker does with one job, and what it tells people about it.
 *
 * A sync job syncs the account into its own DuckDB file, publishes it to the lake, and then runs
 * serve's alerter on that file (the same channels and incidents: a failed or partial run, stale
 * data, "recovered"). A refused login (E_AUTH) is not retried: another login risks locking the
 * account. A dead-lettered job (given up: retries spent, or refused credentials) alerts as the
 * account's `job` incident unless its run's failure is already an open incident (the user has that
 * alert; one cause, one alert); the next job that completes closes it with "recovered".
 * Every outcome is also written to the lake (src/lake/outcomes.ts) for `serve --lake`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AccountConfig } from '../accounts.ts';
import { createAlerter } from '../alerts/alerter.ts';
import { causeOf, judgeRun, type Judgement } from '../alerts/incidents.ts';
import type { Config, WorkerConfig } from '../config.ts';
import { FleetsyncError, describeError, isFleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../time.ts';
import type { Subscription } from '../reports/subscription-file.ts';
import { recordJob, type LastJob } from '../lake/outcomes.ts';
import { publishAccount } from '../lake/publish.ts';
import { outcomesFor, type RunOutcomes } from '../outcome/outcomes.ts';
import { resolveZone } from '../reports/run.ts';
import { loadServicePlanFile } from '../service/store.ts';
import { recordCheckpoint } from '../store/checkpoint.ts';
import { SYNC_DB_THREADS, openDatabase, setDatabaseThreads, type Database } from '../store/db.ts';
import type { RunSummary } from '../sync/types.ts';
import { accountStreams, syncAccount, wireAccount } from '../wiring.ts';

export const DEAD_QUEUE = 'fleetsync-dead';

/** The worker's settings (read by `workerSettings` in worker.ts). */
/** The worker's settings (config.ts, FLEETSYNC_QUEUE_* and the rest), its queue named. */
export type WorkerSettings = WorkerConfig & { queueUrl: string };

export interface JobDeps {
  config: Readonly<Config>;
  accounts: AccountConfig[];
  settings: WorkerSettings;
  log: Logger;
  signal: AbortSignal;
  /** The clock, from the entry point (src/cli.ts). */
  now: Clock;
  /** FLEETSYNC_SUBSCRIPTIONS, read and checked at start: due ones are sent after each completed job. */
  subscriptions?: readonly Subscription[];
}

/** A job: the account, and optionally the days (default: what the sync would pick itself). */
export interface SyncJob {
  account: string;
  fromDay?: string;
  toDay?: string;
  /** Rewrite every partition of the account in the lake, not only the changed ones (`--full-publish`). */
  fullPublish?: boolean;
}

/** Where a job stands in its retries (pg-boss: retryCount counts the retries before this attempt). */
export interface Attempt {
  id: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Whether pg-boss runs the job again if this attempt fails. */
  retriesLeft: boolean;
}

/** What the worker records with pg-boss for a failed attempt (its `output`; the dead letter keeps it). */
export interface FailedOutput {
  message: string;
  code: string;
  account: string;
  job: string;
  attempt: number;
  retrying: boolean;
}

/** The run stopped because the API refused the account's credentials (src/sync/executor.ts stopReason). */
const refusedLogin = (s: RunSummary) => /^stopped \(E_AUTH\)/.test(s.reason ?? '');

/** The error of a run that did not end ok, saying truly what happens next. */
export function runFailure(account: string, s: RunSummary, a: Pick<Attempt, 'retriesLeft'>): FleetsyncError {
  if (refusedLogin(s))
    return new FleetsyncError(
      'E_AUTH',
      `account ${account}: the API refused the credentials (${s.reason}); not retried (another login risks locking the account): ` +
        `fix the account's password, then queue it again (fleetsync worker --enqueue, or the next scheduled tick)`,
    );
  const what = `account ${account}: sync ${s.outcome}${s.reason ? ` (${s.reason})` : ''}`;
  return new FleetsyncError(
    'E_SYNC_PARTIAL',
    a.retriesLeft
      ? `${what}; the job's retry resumes it from the ledger`
      : `${what}; no retry left: the job goes to the dead-letter queue ${DEAD_QUEUE}, and the next scheduled tick (or fleetsync worker --enqueue) resumes it from the ledger`,
  );
}

/** A failure that no retry can fix: the job goes to the dead-letter queue at once. */
export const noRetry = (e: unknown) => isFleetsyncError(e, 'E_AUTH');

const accountFile = (s: WorkerSettings, account: string) => join(s.dataDir, 'accounts', `${account}.duckdb`);

/** Serve's alerter, once, on the account's file, with the worker's `job` incident if any. */
async function checkAlerts(
  deps: JobDeps,
  from: { db: Database | null; outcomes?: RunOutcomes },
  judge?: Judgement[] | ((j: Judgement[]) => Judgement[]),
) {
  const alerter = createAlerter({
    ...from,
    config: deps.config,
    log: deps.log,
    now: deps.now,
    ...(judge
      ? {
          judge: (states) =>
            typeof judge === 'function' ? judge(states.map(judgeRun).filter((j) => j !== null)) : judge,
        }
      : {}),
  });
  try {
    await alerter.check();
  } finally {
    alerter.close();
  }
}

const jobRecovered = (account: string, id: string): Judgement => ({
  account,
  incident: 'job',
  state: 'closed',
  cause: 'ok',
  text: `fleetsync: recovered: a worker job of account ${account} completed again (job ${id}).`,
});

/**
 * Worker mode's schedule of subscriptions: after each completed job, the account's subscriptions
 * (those naming it; one naming none belongs to FLEETSYNC_ACCOUNT) that are due are sent from its
 * file, as `serve` would (src/reports/subscriptions.ts: once per slot, recorded in the file). A
 * failure to send is logged; the job stays done.
 */
async function sendDueSubscriptions(deps: JobDeps, db: Database, account: string): Promise<void> {
  const subs = (deps.subscriptions ?? []).filter((s) => (s.account ?? deps.config.account) === account);
  if (!subs.length) return;
  const { subscriptionTick } = await import('../reports/subscriptions.ts');
  const config = { ...deps.config, account, accountSource: 'FLEETSYNC_ACCOUNT' as const };
  await subscriptionTick({ db, config, log: deps.log, now: deps.now }, subs);
}

/**
 * The account FLEETSYNC_SERVICE_PLAN is for in worker mode: FLEETSYNC_ACCOUNT (the plan names that
 * account's vehicles, as a subscription naming no account belongs to it); null without a plan. Not
 * one of the worker's accounts: E_CONFIG.
 */
export function servicePlanAccount(
  config: Readonly<Config>,
  accounts: readonly AccountConfig[],
): string | null {
  if (!config.servicePlanFile?.trim()) return null;
  if (accounts.some((a) => a.account === config.account)) return config.account;
  throw new FleetsyncError(
    'E_CONFIG',
    `FLEETSYNC_SERVICE_PLAN is the plan of account ${config.account} (FLEETSYNC_ACCOUNT), which is not one of this worker's accounts ` +
      `(${accounts.map((a) => a.account).join(', ')}): set FLEETSYNC_ACCOUNT to the account whose vehicles it names`,
  );
}

/** Checks FLEETSYNC_SERVICE_PLAN on the account's file and stores it when it changed (serve's loader). */
async function loadPlanInto(db: Database, a: AccountConfig, config: Readonly<Config>, nowMs: number) {
  const con = await db.connect();
  try {
    const zone = await resolveZone(con, a.account, a.timezone);
    return await loadServicePlanFile(con, a.account, config, zone, nowMs);
  } finally {
    con.closeSync();
  }
}

/**
 * At start, as `serve` does: FLEETSYNC_SERVICE_PLAN checked whole against its account's file and
 * stored there (a bad file: E_CONFIG naming every problem, exit 2, nothing stored changes). An
 * account never synced has no file yet: the plan is checked against no vehicles and stored by the
 * first job. A file another worker holds: the plan is loaded by this worker's next job of it.
 */
export async function loadServicePlanAtStart(
  deps: Pick<JobDeps, 'config' | 'accounts' | 'settings' | 'log' | 'now'>,
) {
  const account = servicePlanAccount(deps.config, deps.accounts);
  if (account === null) return;
  const a = deps.accounts.find((x) => x.account === account)!;
  const file = accountFile(deps.settings, account);
  let db: Database;
  try {
    db = await openDatabase(existsSync(file) ? file : ':memory:');
  } catch (e) {
    if (!isFleetsyncError(e, 'E_DB_LOCKED')) throw e;
    deps.log.info('service plan loaded at the next job (the account file is held by another process)', {
      account,
    });
    return;
  }
  try {
    const loaded = await loadPlanInto(db, a, deps.config, deps.now());
    deps.log.info('service plan checked', { account, file: deps.config.servicePlanFile, loaded });
  } finally {
    db.close();
  }
}

/**
 * After a job's sync, before its alerts: the service plan again when it changed (the first job of
 * a new account file stores it). A file made bad since the start is logged and the last good plan
 * kept; the job stays done.
 */
async function reloadServicePlan(deps: JobDeps, db: Database, a: AccountConfig): Promise<void> {
  if (servicePlanAccount(deps.config, deps.accounts) !== a.account) return;
  try {
    const loaded = await loadPlanInto(db, a, deps.config, deps.now());
    if (loaded === 'loaded') deps.log.info('service plan loaded', { account: a.account });
  } catch (e) {
    if (!isFleetsyncError(e, 'E_CONFIG')) throw e;
    deps.log.error('service plan not loaded; the last good one stays', {
      account: a.account,
      error: describeError(e),
    });
  }
}

/**
 * One attempt of a sync job: sync the account into its own file, publish it, alert. A run stopped
 * by the worker's stop signal is published too (below); a failed or partial run otherwise is not.
 */
export async function syncAccountJob(
  deps: JobDeps,
  job: SyncJob,
  jobId: string,
  attempt: Attempt = { id: jobId, attempt: 1, retriesLeft: true },
): Promise<void> {
  const { account } = job;
  const a = deps.accounts.find((x) => x.account === account);
  if (!a) throw new FleetsyncError('E_CONFIG', `job ${jobId}: account ${account} is not in FLEETSYNC_CONFIG`);
  const { config, settings, log } = deps;
  const db = await openDatabase(accountFile(settings, account));
  // One DuckDB thread for the job, as `fleetsync sync` runs (SYNC_DB_THREADS): a run's statements
  // are small, a second thread adds its scheduling; the upgrade at open above keeps the default.
  await setDatabaseThreads(db, SYNC_DB_THREADS).catch((e: unknown) => {
    db.close();
    throw e;
  });
  const { client, deps: syncDeps } = wireAccount(db, a, config, log, { signal: deps.signal, now: deps.now });
  const lake = settings.lakeDir;
  const record = (j: Omit<LastJob, 'id' | 'attempt' | 'ended_at'>, publishedAt?: string) => {
    if (!lake) return;
    try {
      const at = new Date().toISOString();
      recordJob(lake, account, { id: jobId, attempt: attempt.attempt, ended_at: at, ...j }, publishedAt);
    } catch (e) {
      log.error('job outcome not recorded in the lake', { account, error: describeError(e) });
    }
  };
  /** The account's tables from its file to the lake; the time of the publish (none without a lake). */
  const publish = async (): Promise<string | undefined> => {
    if (!lake) return undefined;
    const con = await db.connect();
    try {
      const p = await publishAccount(con, account, lake, { full: job.fullPublish === true });
      log.info('lake published', {
        account,
        files: p.files,
        kept: p.kept,
        removed: p.removed,
        ...(p.full ? { full: p.full } : {}),
      });
      return new Date().toISOString();
    } finally {
      con.closeSync();
    }
  };
  let failure: unknown = null;
  let publishedAt: string | undefined;
  let summary: RunSummary | null = null;
  try {
    log.info('job started', { job: jobId, account, attempt: attempt.attempt });
    summary = await syncAccount(syncDeps, {
      trigger: 'schedule',
      ...accountStreams(a),
      ...(job.fromDay ? { fromDay: job.fromDay } : {}),
      ...(job.toDay ? { toDay: job.toDay } : {}),
    });
    // A worker asked to stop (SIGTERM) mid-job publishes what the interrupted run committed, its
    // run row (`partial`, "interrupted: the run was asked to stop") with it: the lake says what the
    // file says, not that nothing ran after the last publish (the job is retried, resuming from
    // the ledger, by whichever worker takes it next). A run that fails otherwise publishes nothing.
    if (summary.outcome === 'ok' || deps.signal.aborted) publishedAt = await publish();
    if (summary.outcome !== 'ok') throw runFailure(account, summary, attempt);
    await reloadServicePlan(deps, db, a);
    await sendDueSubscriptions(deps, db, account);
  } catch (e) {
    failure = e;
  }
  // The job closes the file: its checkpoint, explicit (a failed one at close is silent), kept in
  // the state file beside it until one succeeds (src/store/checkpoint.ts). A failure fails the
  // job, which is retried: the data are in the lake and the .wal, not in the file; the retry (or
  // any later job of the account) checkpoints again. A failed checkpoint leaves the DuckDB
  // instance unusable: the alerts then judge the state file alone (its `checkpoint` incident).
  const unwritten = await recordCheckpoint(db, deps.now(), log).catch((e: unknown) => {
    log.error('checkpoint not recorded', { account, error: describeError(e) });
    return null;
  });
  if (unwritten) {
    log.warn('checkpoint failed', { job: jobId, account, problem: unwritten.problem });
    failure ??= checkpointFailure(account, unwritten.problem, publishedAt !== undefined, attempt);
  }
  try {
    if (failure === null) {
      record({ outcome: 'ok', retrying: false, error: null }, publishedAt);
      log.info('job done', { job: jobId, account, run: summary?.run_id, outcome: summary?.outcome });
    } else
      record(
        {
          outcome: 'failed',
          retrying: attempt.retriesLeft && !noRetry(failure),
          error: describeError(failure),
        },
        publishedAt,
      );
    // Serve's incidents from the file the run just wrote; a completed job also closes `job`.
    await checkAlerts(
      deps,
      unwritten ? { db: null, outcomes: outcomesFor(db.path, log) } : { db },
      failure === null ? [jobRecovered(account, jobId)] : undefined,
    ).catch((e) => log.error('alert check failed', { account, error: describeError(e) }));
  } finally {
    await client.close();
    db.close();
  }
  if (failure !== null) throw failure;
}

/** The error of a job whose checkpoint failed: the data wait in the .wal; what happens next, and what to do. */
function checkpointFailure(
  account: string,
  problem: string,
  published: boolean,
  a: Pick<Attempt, 'retriesLeft'>,
): FleetsyncError {
  return new FleetsyncError(
    'E_DB',
    `account ${account}: the job's checkpoint failed${published ? ' (the lake has the synced data)' : ''}: ${problem}; ` +
      (a.retriesLeft
        ? `the job's retry checkpoints again`
        : `no retry left: the job goes to the dead-letter queue ${DEAD_QUEUE}, and the account's next job (the next scheduled tick, or fleetsync worker --enqueue) checkpoints again`),
  );
}

/**
 * A job in the dead-letter queue: recorded in the lake as given up and alerted as the account's
 * `job` incident, unless its run's failure is an open incident already (that alert went out).
 */
export async function deadLetterJob(
  deps: JobDeps,
  job: SyncJob,
  output: unknown,
  deadId: string,
): Promise<void> {
  const { account } = job;
  const o = (output ?? {}) as Partial<FailedOutput> & { value?: { message?: string } };
  const why = o.message ?? o.value?.message ?? 'no error recorded';
  const original = o.job ?? deadId;
  const tries = o.attempt ? `failed ${o.attempt} time(s)` : 'failed';
  const text =
    `fleetsync: a worker gave up on the sync of account ${account}: job ${original} ${tries} and is in the dead-letter queue ${DEAD_QUEUE}. ` +
    `Last error: ${why}. The next scheduled tick (or fleetsync worker --enqueue) queues the account again; its sync resumes from the ledger.`;
  deps.log.error('job given up', { job: original, account, error: why });
  if (deps.settings.lakeDir)
    recordJob(deps.settings.lakeDir, account, {
      id: original,
      outcome: 'dead',
      attempt: o.attempt ?? 0,
      ended_at: new Date().toISOString(),
      retrying: false,
      error: why,
    });
  const known = deps.accounts.some((a) => a.account === account);
  // An account this worker does not know has no file, and a file another worker holds (the
  // account's next job runs) cannot be opened: then the incident lives in memory (sent once).
  const db = await openDatabase(known ? accountFile(deps.settings, account) : ':memory:').catch(
    (e: unknown) => {
      if (!isFleetsyncError(e, 'E_DB_LOCKED')) throw e;
      deps.log.info('dead letter alerted without the account file (held by another process)', { account });
      return openDatabase(':memory:');
    },
  );
  try {
    const open: Judgement = { account, incident: 'job', state: 'open', cause: causeOf(text), text };
    // A checkpoint that keeps failing has its own open incident (`checkpoint`, its cause and fix).
    const unwritten = known && !!outcomesFor(db.path, deps.log).read().checkpoint;
    await checkAlerts(deps, { db }, (runs) =>
      unwritten || runs.some((r) => r.account === account && r.state === 'open') ? [] : [open],
    );
  } finally {
    db.close();
  }
}
