/**
 * One sync run, read top to bottom: lock the account → start the run log → pull the snapshots →
 * plan the gaps → execute the units (executor.ts executePlan: the odometer first, it gives the
 * vehicles' data horizons; the bottleneck bucket's units as soon as their own vehicles' odometer
 * is in) → finish the run log. Each stage lives in its own module (lock, run-log, snapshots,
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
import { SETTLE_MS } from '../defaults.ts';
import { executePlan, stopReason, stopsTheRun, streamContext, widenStopSignal } from './executor.ts';
import { lockAccount } from './lock.ts';
import { buildPlan, plannedVehicles, requestedStreams, resolveRange } from './planner.ts';
import { newRunLog, startRunLog } from './run-log.ts';
import { modelRules } from './rules.ts';
import { pullSnapshots } from './snapshots.ts';
import { BUILTIN_STREAMS } from './streams/index.ts';
import { checkAccountZone } from './zone.ts';
import type { PlanSummary, RunSummary, SyncDeps, SyncRequest } from './types.ts';

export type { SyncDeps } from './types.ts';
export { resolveRange } from './planner.ts';

export async function runSync(deps: SyncDeps, req: SyncRequest): Promise<RunSummary> {
  const unlock = lockAccount(deps.db, deps.account);
  widenStopSignal(deps);
  const defs = deps.streams ?? BUILTIN_STREAMS;
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ account: deps.account });
  const con = await deps.db.connect();
  let recorded: string | null;
  try {
    // Before anything is sent: a zone other than the recorded one would shift every window.
    recorded = await checkAccountZone(con, deps);
  } catch (e) {
    unlock();
    con.closeSync();
    throw e;
  }
  const run = newRunLog(deps.account, log, now, deps.client);
  deps.client.rearm(); // a run starts with a closed breaker, whatever stopped the client before
  // The last run's requests (maybe another process's: a worker's job right after another's) may
  // still count in the API's windows: no bucket sends until a window has passed since it ended.
  const [last] = await queryJs(con, 'sync/last_run_end', [deps.account]);
  if (last?.ended_ms != null) deps.client.holdWindowSince(now() - Number(last.ended_ms));
  const stop = (e: unknown) => {
    const reason = stopReason(e, deps.account);
    run.end('failed', reason);
    log.error('sync stopped', { reason });
  };
  let refused: unknown = null;
  const rules = modelRules(deps.db);
  try {
    try {
      const range = await resolveRange(con, deps, req);
      const streams = requestedStreams(req, defs);
      await startRunLog(con, run, { ...deps, log }, req.trigger, range, streams);

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

      const ctx = streamContext(deps, log, now, rules);
      const stoppedBy = await executePlan(con, deps, { units, plan, definitions: defs, ctx, run });

      if (stoppedBy) stop(stoppedBy);
      else if (deps.signal?.aborted) run.end('partial', 'interrupted: the run was asked to stop');
      if (isZoneMismatch(stoppedBy)) refused = stoppedBy;
    } catch (e) {
      if (isFleetsyncError(e, 'E_USAGE')) throw e; // a bad request: no run row to finish
      if (stopsTheRun(e)) stop(e);
      else {
        run.end('failed', describeError(e));
        log.error('sync failed', { error: describeError(e) });
      }
      if (isZoneMismatch(e)) refused = e;
    }
    await run.finish(con).catch((e: unknown) => {
      // The full disk that stopped the run may refuse its row too: the summary still says what happened.
      if (!stopsTheRun(e)) throw e;
      log.error('could not record the run', { error: describeError(e) });
    });
    if (refused) {
      // The API's offsets contradict the zone: a zone this first run recorded is not kept.
      if (recorded === null) await execute(con, 'sync/account_forget_zone', [deps.account]);
      throw refused;
    }
  } finally {
    await rules.close();
    unlock();
    con.closeSync();
  }
  return run.summary;
}

/** The plan alone (`sync --plan`): nothing is sent. */
export async function planSync(deps: SyncDeps, req: SyncRequest): Promise<PlanSummary> {
  const con = await deps.db.connect();
  try {
    await checkAccountZone(con, deps);
    const range = await resolveRange(con, deps, req);
    const streams = requestedStreams(req, deps.streams ?? BUILTIN_STREAMS);
    const { summary } = await buildPlan(con, {
      ...planInput(deps, range, streams, deps.now ?? Date.now),
      vehicles: await plannedVehicles(con, deps.account),
      runId: 'plan',
    });
    return summary;
  } finally {
    con.closeSync();
  }
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
    settledBeforeMs: now() - (deps.settleMs ?? SETTLE_MS),
    definitions: deps.streams ?? BUILTIN_STREAMS,
    maxWindowRecords: deps.maxWindowRecords,
  };
}
