/**
 * One sync run, read top to bottom: lock the account → start the run log → pull the snapshots →
 * plan the gaps → execute the units (the odometer first: it gives the vehicles' data horizons;
 * the bottleneck bucket's units as soon as their own vehicles' odometer is in) → finish the run log. Each stage lives in its own module
 * (lock, run-log, snapshots, planner, executor); the streams are declarations (streams/*.ts).
 * The run is `ok` only when every window succeeded; a failed window makes it `partial`, a
 * failure that stops the run (executor.stopsTheRun: refused credentials, the circuit breaker,
 * the storage) or an error before the plan makes it `failed`, with one error line saying why.
 * The API release-notes check runs beside the sync (src/changes/after-sync.ts), not in it.
 * Before all of it, the zone check (zone.ts): a zone other than the account's recorded one is
 * refused before a request is sent; the API answering in another offset stops the run (E_CONFIG).
 */
import { leastDurationMs } from '../api/client.ts';
import { isZoneMismatch } from '../api/wire.ts';
import { describeError, isFleetsyncError } from '../errors.ts';
import { execute, queryJs } from '../store/queries.ts';
import { SETTLE_MS } from '../defaults.ts';
import { executeUnits, stopReason, stopsTheRun, streamContext, widenStopSignal } from './executor.ts';
import { readAccess, recordAccess, stateWords, trustedEndpoints } from './access.ts';
import { lockAccount } from './lock.ts';
import { loadHorizons } from './ledger.ts';
import { buildPlan, plannedVehicles, requestedStreams, resolveRange } from './planner.ts';
import { newRunLog, startRunLog } from './run-log.ts';
import { modelRules } from './rules.ts';
import { pullSnapshots } from './snapshots.ts';
import { BUILTIN_STREAMS } from './streams/index.ts';
import { checkAccountZone } from './zone.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from '../log.ts';
import type { StreamDefinition } from './stream.ts';
import type { PlanSummary, RunSummary, SyncDeps, SyncRequest } from './types.ts';
import type { Unit } from './unit.ts';

export type { SyncDeps } from './types.ts';
export { resolveRange } from './planner.ts';

/** The streams whose answers give the vehicles' data horizons (pulled before the rest). */
const HORIZON_STREAMS = new Set(['odometer']);

/**
 * The units of the plan's bottleneck bucket, when it is not the default bucket the odometer
 * shares and it needs more than one limit window, and their stream is per vehicle: with the
 * vehicles they cover (their scope is a vehicle id, or a bulk unit's ids joined by commas).
 */
export function earlyUnits(
  units: readonly Unit[],
  defs: readonly StreamDefinition[],
  plan: Pick<PlanSummary, 'requestsByBucket'>,
  deps: Pick<SyncDeps, 'windowMs' | 'limits'>,
): { units: Set<Unit>; vehicles: Set<string> } {
  const none = { units: new Set<Unit>(), vehicles: new Set<string>() };
  let worst: { bucket: string; ms: number } | null = null;
  for (const [bucket, n] of Object.entries(plan.requestsByBucket)) {
    const ms = leastDurationMs(
      { [bucket]: n },
      { windowMs: deps.windowMs, ...(deps.limits ? { limits: deps.limits } : {}) },
    );
    if (!worst || ms > worst.ms) worst = { bucket, ms };
  }
  if (!worst || worst.bucket === 'default' || worst.ms <= 0) return none;
  const perVehicle = new Set(
    defs.filter((d) => d.scope === 'vehicle' && !HORIZON_STREAMS.has(d.name)).map((d) => d.name),
  );
  const picked = units.filter((u) => u.bucket === worst.bucket && perVehicle.has(u.stream));
  return { units: new Set(picked), vehicles: new Set(picked.flatMap((u) => u.scope.split(','))) };
}

export async function runSync(deps: SyncDeps, req: SyncRequest): Promise<RunSummary> {
  const unlock = lockAccount(deps.db, deps.account);
  widenStopSignal(deps);
  const defs = deps.streams ?? BUILTIN_STREAMS;
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ account: deps.account });
  const con = await deps.db.connect();
  let recorded: string | null;
  let trusted: string[];
  try {
    // Before anything is sent: a zone other than the recorded one would shift every window.
    recorded = await checkAccountZone(con, deps);
    trusted = await trustedEndpoints(con, deps.account);
  } catch (e) {
    unlock();
    con.closeSync();
    throw e;
  }
  const run = newRunLog(deps.account, log, now, deps.client);
  // A run starts with a closed breaker, whatever stopped the client before, and probes once each
  // endpoint not recorded as answering (a refused one, or one never asked): sync/access.ts.
  deps.client.rearm(trusted);
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

      // The odometer goes first: its answers give each vehicle's data horizon, which decides
      // whether the other streams' windows have settled (a vehicle silent for days holds them).
      const ctx = streamContext(deps, log, now, rules);
      await loadHorizons(con, ctx);
      const horizonUnits = units.filter((u) => HORIZON_STREAMS.has(u.stream));
      const early = earlyUnits(units, defs, plan, deps);
      const rest = units.filter((u) => !HORIZON_STREAMS.has(u.stream) && !early.units.has(u));
      // The bottleneck bucket's units (the EV energy's 10 a minute set a 90-day run's length)
      // start once the odometer of their own vehicles is in, beside the rest of the odometer and
      // everything after it, rather than after the whole fleet's odometer (issue 16).
      const needed = horizonUnits.filter((u) => early.vehicles.has(u.scope));
      const stopped = { by: null as unknown };
      let neededLeft = needed.length;
      let horizonsIn!: () => void;
      const neededIn = new Promise<void>((r) => (horizonsIn = r));
      if (neededLeft === 0) horizonsIn();
      const earlyRun = early.units.size
        ? (async () => {
            await neededIn;
            if (stopped.by || deps.signal?.aborted) return;
            // Their own horizons (the shared map is reloaded meanwhile) and their own connection.
            const earlyCtx = { ...ctx, horizons: new Map(ctx.horizons) };
            const c = await deps.db.connect();
            try {
              await loadHorizons(c, earlyCtx);
            } finally {
              c.closeSync();
            }
            await executeUnits({
              ...deps,
              units: [...early.units],
              definitions: defs,
              ctx: earlyCtx,
              run,
              stop: stopped,
            });
          })()
        : Promise.resolve();
      earlyRun.catch(() => undefined); // awaited below; a failure is not left unhandled meanwhile
      const neededFirst = [...needed, ...horizonUnits.filter((u) => !early.vehicles.has(u.scope))];
      // Every call shares `stopped`: what stopped one stopped the run.
      try {
        await executeUnits({
          ...deps,
          units: neededFirst,
          definitions: defs,
          ctx,
          run,
          stop: stopped,
          onUnitDone: (u) => {
            if (early.vehicles.has(u.scope) && --neededLeft === 0) horizonsIn();
          },
        });
        horizonsIn(); // a stopped run may leave some undone: the early units then see the stop
        if (!stopped.by && !deps.signal?.aborted) {
          await loadHorizons(con, ctx);
          await executeUnits({ ...deps, units: rest, definitions: defs, ctx, run, stop: stopped });
        }
      } catch (e) {
        stopped.by ??= e; // the early units stop too, and the run ends only once they have
        horizonsIn();
        await earlyRun.catch(() => undefined);
        throw e;
      }
      await earlyRun;
      const stoppedBy = stopped.by;

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
    await recordRunAccess(con, deps, defs, run.summary, now, log);
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
      ...planInput(deps, range, streams, deps.now ?? Date.now),
      vehicles: await plannedVehicles(con, deps.account),
      runId: 'plan',
    });
    for (const a of await readAccess(con, deps.account))
      if (a.state !== 'ok' && a.streams.some((n) => streams.has(n)))
        summary.notes.push(
          `${a.endpoint} is ${stateWords(a.state)} (since ${new Date(a.sinceMs).toISOString().slice(0, 10)}): the run asks it once and skips ${a.streams.join(', ')} unless it answers`,
        );
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
