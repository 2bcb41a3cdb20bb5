/**
 * One sync run, read top to bottom: lock the account → start the run log → pull the snapshots →
 * plan the gaps → execute the units (executor.ts executePlan: the odometer first, it gives the
 * vehicles' data horizons; then the rest, the critical bucket's once its own vehicles' is in) → finish the run log. Each stage lives in its own module (lock, run-log, snapshots,
 * planner, executor); the streams are declarations (streams/*.ts).
 * The run is `ok` only when every window succeeded; a failed window makes it `partial`, a
 * failure that stops the run (executor.stopsTheRun: refused credentials, the circuit breaker,
 * the storage) or an error before the plan makes it `failed`, with one error line saying why.
 * The API release-notes check runs beside the sync (src/changes/after-sync.ts), not in it.
 * Before all of it, the zone check (zone.ts): a zone other than the account's recorded one is
 * refused before a request is sent; the API answering in another offset stops the run (E_CONFIG).
 */
import { isZoneMismatch } from '../api/wire.ts';
import { describeError, isFleetsyncError } from '../errors.ts';
import { execute, queryJs } from '../store/queries.ts';
import { OUTCOME_ACTIVITY_MS, SETTLE_MS } from '../defaults.ts';
import { isAlive, outcomesFor, type RunHandle, type RunOutcome } from '../outcome/outcomes.ts';
import { executePlan, stopReason, stopsTheRun, streamContext, widenStopSignal } from './executor.ts';
import { readAccess, recordAccess, stateWords, trustedEndpoints } from './access.ts';
import { lockAccount } from './lock.ts';
import { buildPlan, plannedVehicles, requestedStreams, resolveRange } from './planner.ts';
import { newRunLog, startRunLog } from './run-log.ts';
import { modelRules } from './rules.ts';
import { pullSnapshots } from './snapshots.ts';
import { BUILTIN_STREAMS } from './streams/index.ts';
import { checkAccountZone } from './zone.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from '../log.ts';
import type { StreamDefinition } from './stream.ts';
import type { RunLog } from './run-log.ts';
import type { WindowRules } from './rules.ts';
import type { Clock } from '../time.ts';
import type { PlanSummary, RunSummary, SyncDeps, SyncRequest } from './types.ts';

export type { SyncDeps } from './types.ts';
export { resolveRange } from './planner.ts';

/** The reason of a run stopped by its signal (SIGTERM, Ctrl-C): `partial`, what it committed kept. */
export const INTERRUPTED = 'interrupted: the run was asked to stop';

/** Whether the run ended because it was asked to stop. */
export const wasInterrupted = (s: Pick<RunSummary, 'outcome' | 'reason'>) =>
  s.outcome === 'partial' && s.reason === INTERRUPTED;

export async function runSync(deps: SyncDeps, req: SyncRequest): Promise<RunSummary> {
  const unlock = lockAccount(deps.db, deps.account);
  const now = deps.now;
  // The run is `running` in the state file beside the database before it touches the database:
  // a process that dies from here on (an abort inside DuckDB, a kill) is found unfinished.
  const outcomes = outcomesFor(deps.db.path, deps.log);
  const previous = outcomes.read().accounts[deps.account];
  const handle = outcomes.begin(deps.account, req.trigger, now());
  let recorded = false;
  let summary: RunSummary | null = null;
  try {
    summary = await runLocked(deps, req, handle, previous, () => (recorded = true));
    return summary;
  } catch (e) {
    // A bad request or a refused configuration (exit 2) is not a run; anything else is a failed one.
    if (!recorded && (isFleetsyncError(e, 'E_USAGE') || isFleetsyncError(e, 'E_CONFIG'))) handle.abandon();
    else handle.end({ state: 'failed', error: describeError(e), recorded, nowMs: now() });
    throw e;
  } finally {
    unlock();
    if (summary)
      handle.end({
        state: summary.outcome,
        error: summary.reason ?? summary.errors[0]?.reason ?? null,
        recorded,
        nowMs: now(),
      });
  }
}

async function runLocked(
  deps: SyncDeps,
  req: SyncRequest,
  handle: RunHandle,
  previous: RunOutcome | undefined,
  onRecorded: () => void,
): Promise<RunSummary> {
  widenStopSignal(deps);
  const defs = deps.streams ?? BUILTIN_STREAMS;
  const now = deps.now;
  const log = deps.log.child({ account: deps.account });
  const con = await deps.db.connect();
  let recorded: string | null;
  let trusted: string[];
  try {
    // Before anything is sent: a zone other than the recorded one would shift every window.
    recorded = await checkAccountZone(con, deps);
    trusted = await trustedEndpoints(con, deps.account);
  } catch (e) {
    con.closeSync();
    throw e;
  }
  const run = newRunLog(deps.account, deps.timezone, log, now, deps.client);
  handle.named(run.runId);
  const activity = trackActivity(deps, handle, now);
  const rules = modelRules(deps.db);
  try {
    await readyClient(con, deps, trusted, previous, now);
    activity.start();
    const refused = await runStages(con, { deps, req, defs, now, log, run, rules, previous });
    activity.end();
    await recordRunAccess(con, deps, defs, run.summary, now, log);
    await finishRunLog(con, run, log, onRecorded);
    if (refused) {
      // The API's offsets contradict the zone: a zone this first run recorded is not kept.
      if (recorded === null) await execute(con, 'sync/account_forget_zone', [deps.account]);
      throw refused;
    }
  } finally {
    activity.stop();
    await rules.close();
    con.closeSync();
  }
  return run.summary;
}

interface Stages {
  deps: SyncDeps;
  req: SyncRequest;
  defs: readonly StreamDefinition[];
  now: Clock;
  log: Logger;
  run: RunLog;
  rules: WindowRules;
  previous: RunOutcome | undefined;
}

/**
 * The run's stages: range → run log → snapshots → plan → execute. What stops the run ends the
 * run log `failed` here; returns the zone mismatch that stopped it (run.ts refuses the run with
 * it once its row is written), or null.
 */
async function runStages(con: DuckDBConnection, s: Stages): Promise<unknown> {
  const { deps, req, defs, now, log, run, previous } = s;
  const stop = (e: unknown) => {
    const reason = stopReason(e, deps.account);
    run.end('failed', reason);
    log.error('sync stopped', { reason });
  };
  try {
    const range = await resolveRange(con, deps, req);
    const streams = requestedStreams(req, defs);
    await startRunLog(con, run, { ...deps, log }, req.trigger, range, streams);
    // A run whose process died (its row was just marked interrupted) keeps the requests it sent.
    if (previous?.state === 'running' && previous.run_id && !isAlive(previous))
      await execute(con, 'sync/run_interrupted_counts', [
        previous.run_id,
        previous.requests,
        new Date(previous.last_request_ms ?? previous.started_ms).toISOString(),
      ]);

    await pullSnapshots(con, { ...deps, now, log }, defs, streams, run);

    const { units, summary: plan } = await buildPlan(con, {
      ...planInput(deps, range, streams, now),
      vehicles: await plannedVehicles(con, deps.account),
      runId: run.runId,
    });
    log.info('plan', {
      units: units.length,
      least: Math.round(plan.leastDurationMs),
      fuel: plan.fuelPath.chosen,
    });

    const ctx = streamContext(deps, log, now, s.rules);
    const stoppedBy = await executePlan(con, deps, { units, definitions: defs, ctx, run });

    if (stoppedBy) stop(stoppedBy);
    else if (deps.signal?.aborted) run.end('partial', INTERRUPTED);
    return isZoneMismatch(stoppedBy) ? stoppedBy : null;
  } catch (e) {
    if (isFleetsyncError(e, 'E_USAGE')) throw e; // a bad request: no run row to finish
    if (stopsTheRun(e)) stop(e);
    else {
      run.end('failed', describeError(e));
      log.error('sync failed', { error: describeError(e) });
    }
    return isZoneMismatch(e) ? e : null;
  }
}

/**
 * A run starts with a closed breaker, whatever stopped the client before, and probes once each
 * endpoint not recorded as answering (a refused one, or one never asked): sync/access.ts.
 * The last run's requests (maybe another process's: a worker's job right after another's, or a
 * run killed before it could end its row: its last request is in the state file) may still
 * count in the API's windows: no bucket sends until a window has passed since the last of them.
 * The API counts per account over a sliding window (fleet-api-contract.md, "Rate limits"), and
 * which of the last run's requests still count is not known here: the wait is right, and it is
 * said at warn (a terminal's sync shows warn and up) with its reason and the time left, before the
 * silence it causes.
 */
export async function readyClient(
  con: DuckDBConnection,
  deps: SyncDeps,
  trusted: string[],
  previous: RunOutcome | undefined,
  now: Clock,
): Promise<void> {
  deps.client.rearm(trusted);
  const [last] = await queryJs(con, 'sync/last_run_end', [deps.account]);
  const lastMs = Math.max(
    last?.ended_ms == null ? -Infinity : Number(last.ended_ms),
    previous?.last_request_ms ?? -Infinity,
  );
  if (!Number.isFinite(lastMs)) return;
  const waitMs = deps.client.holdWindowSince(now() - lastMs);
  // said before the silence, not after: the first request waits for the last run's rate window
  if (waitMs > 0) {
    const waitS = Math.ceil(waitMs / 1000);
    deps.log.warn(
      `waiting for the rate-limit window of the previous run before the first request: ${waitS} s left ` +
        `(its requests, the last ${Math.round((now() - lastMs) / 1000)} s ago, still count in the API's per-account limits)`,
      { wait_s: waitS },
    );
  }
}

/**
 * The run's requests and its last activity, noted in the state file beside the database every
 * OUTCOME_ACTIVITY_MS from `start()` to `stop()`, and once more at `end()` (a request on the wire may be
 * counted by the API at any moment until its answer is back).
 */
function trackActivity(deps: SyncDeps, handle: RunHandle, now: Clock) {
  const startRequests = deps.client.stats().requests;
  let timer: NodeJS.Timeout | null = null;
  const note = () => {
    const a = deps.client.activity();
    handle.activity(a.inFlight > 0 ? now() : a.lastMs, deps.client.stats().requests - startRequests);
  };
  return {
    start() {
      timer = setInterval(note, OUTCOME_ACTIVITY_MS);
      timer.unref();
    },
    stop: () => clearInterval(timer ?? undefined),
    end() {
      clearInterval(timer ?? undefined);
      note();
    },
  };
}

/** Writes the run's row; a storage that refuses it is logged (the state file still says how it ended). */
async function finishRunLog(
  con: DuckDBConnection,
  run: ReturnType<typeof newRunLog>,
  log: Logger,
  onRecorded: () => void,
): Promise<void> {
  try {
    await run.finish(con);
  } catch (e) {
    // The full disk that stopped the run may refuse its row too: the summary still says what
    // happened, and the state file beside the database keeps it (status, /healthz, alerts).
    if (!stopsTheRun(e)) throw e;
    log.error('could not record the run', { error: describeError(e) });
    return;
  }
  const [row] = await queryJs(con, 'sync/run_recorded', [run.runId, run.summary.outcome]);
  if (Number(row?.n) > 0) onRecorded();
  else log.error('could not record the run', { error: 'its row was never written (the storage refused it)' });
}

/** Records what the run learned about the account's endpoints (never fails the run). */
async function recordRunAccess(
  con: DuckDBConnection,
  deps: SyncDeps,
  defs: readonly StreamDefinition[],
  summary: RunSummary,
  now: () => number,
  log: Logger,
): Promise<void> {
  try {
    const changes = await recordAccess(con, {
      account: deps.account,
      nowMs: now(),
      view: deps.client.access(),
      defs,
      log,
    });
    if (changes.length) summary.accessChanges = changes;
  } catch (e) {
    if (!stopsTheRun(e)) throw e;
    log.error('could not record the endpoints refused', { error: describeError(e) });
  }
}

/** The plan alone (`sync --plan`): nothing is sent. */
export async function planSync(deps: SyncDeps, req: SyncRequest): Promise<PlanSummary> {
  const con = await deps.db.connect();
  try {
    await checkAccountZone(con, deps);
    const range = await resolveRange(con, deps, req);
    const streams = requestedStreams(req, deps.streams ?? BUILTIN_STREAMS);
    const { summary } = await buildPlan(con, {
      ...planInput(deps, range, streams, deps.now),
      vehicles: await plannedVehicles(con, deps.account),
      runId: 'plan',
    });
    const defs = deps.streams ?? BUILTIN_STREAMS;
    for (const a of await readAccess(con, deps.account))
      if (a.state !== 'ok' && a.streams.some((n) => streams.has(n))) {
        for (const name of a.streams) planProbeOnly(summary, defs, name, a.endpoint);
        summary.notes.push(
          `${a.endpoint} is ${stateWords(a.state)} (since ${new Date(a.sinceMs).toISOString().slice(0, 10)}): the run asks it once and skips ${a.streams.join(', ')} unless it answers`,
        );
      }
    return summary;
  } finally {
    con.closeSync();
  }
}

/**
 * A stream whose one endpoint is recorded refused costs the run one request, the probe (api/access.ts
 * gate): its planned requests become 1, taken off its bucket too. A stream that also calls other
 * endpoints keeps its plan (they are still sent).
 */
function planProbeOnly(
  summary: PlanSummary,
  defs: readonly StreamDefinition[],
  name: string,
  endpoint: string,
) {
  const def = defs.find((d) => d.name === name);
  const planned = summary.requestsByStream[name] ?? 0;
  if (
    !def ||
    planned <= 1 ||
    def.endpoints.length !== 1 ||
    def.endpoints[0] !== endpoint ||
    def.buckets.length !== 1
  )
    return;
  summary.requestsByStream[name] = 1;
  const bucket = def.buckets[0]!;
  if (summary.requestsByBucket[bucket] !== undefined) summary.requestsByBucket[bucket] -= planned - 1;
}

function planInput(
  deps: SyncDeps,
  range: { startMs: number; endMs: number },
  streams: Set<string>,
  now: () => number,
) {
  return {
    account: deps.account,
    zone: deps.timezone,
    range,
    streams,
    windowMs: deps.windowMs,
    limits: deps.limits,
    fuelPath: deps.fuelPath,
    fillsPath: deps.fillsPath,
    sites: deps.sites,
    settledBeforeMs: now() - (deps.settleMs ?? SETTLE_MS),
    definitions: deps.streams ?? BUILTIN_STREAMS,
    maxWindowRecords: deps.maxWindowRecords,
  };
}
