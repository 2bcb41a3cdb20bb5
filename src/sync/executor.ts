/**
 * The executor: runs the planned units with bounded concurrency (the client's rate buckets pace
 * the requests), longest request chains first, and commits each window through its stream's
 * group committer on a writer connection of its own. A failed window is counted and recorded in
 * the ledger (where nothing is stored yet) and the run goes on — unless the failure is one that
 * stops the run (see `stopsTheRun`): then nothing more is written. A unit whose endpoint is not
 * permitted or not available skips its stream for the run (sync/access.ts): no window fails.
 */
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isAccessRefusal } from '../api/access.ts';
import { isZoneMismatch } from '../api/wire.ts';
import { describeError, isFleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { raiseLoweredMemory, type Database } from '../store/db.ts';
import { storageFailure } from '../store/storage-error.ts';
import type { Clock } from '../time.ts';
import { leastDurationMs } from '../api/client.ts';
import { groupCommitter, replacedRanges, type GroupCommitter } from './commit.ts';
import { refreshFacts, refreshFactsOfStreams, storedTripsReach } from '../store/facts.ts';
import {
  DEFAULT_CONCURRENCY,
  MAX_LATE_MS,
  MAX_WINDOW_RECORDS,
  MAX_WRITE_BACKLOG_BYTES,
  ODOMETER_LAG_MS,
  SETTLE_MS,
  SHARED_WRITER_MAX_UNITS,
} from '../defaults.ts';
import { ledgerWrite, loadHorizons, recordFailedWindow } from './ledger.ts';
import { newMeter, type RunLog } from './run-log.ts';
import type { WindowRules } from './rules.ts';
import type { StreamDefinition } from './stream.ts';
import type { SyncDeps } from './types.ts';
import type { StreamContext, Unit } from './unit.ts';
import { windowLabel } from './windows.ts';

/**
 * The one place that decides a failure stops the whole run, by code: the API refused the
 * credentials (E_AUTH), the circuit breaker opened (E_API_DOWN), the API answers in another zone
 * than the configured one (every window would be wrong), or the storage under the
 * database failed (store/storage-error.ts: no point writing on, DuckDB may abort on further writes).
 */
export function stopsTheRun(e: unknown): boolean {
  if (isZoneMismatch(e)) return true;
  return isFleetsyncError(e, 'E_AUTH') || isFleetsyncError(e, 'E_API_DOWN') || storageFailure(e) !== null;
}

/** Why a run stopped, for the run log, the summary and the one error line. */
export function stopReason(e: unknown, account: string): string {
  if (isFleetsyncError(e, 'E_AUTH'))
    return `stopped (E_AUTH): the API refused the credentials for account ${account} (${e.message})`;
  if (isFleetsyncError(e, 'E_API_DOWN')) return `stopped (E_API_DOWN): ${e.message}`;
  const storage = storageFailure(e);
  if (storage) return `stopped: the storage under the database failed (${storage}): ${describeError(e)}`;
  return `stopped: ${describeError(e)}`;
}

/**
 * Every request in flight (up to the concurrency, plus a window's pages asked at once) listens on
 * the stop signal: more than Node's default of 10 is expected, not a leak.
 */
export function widenStopSignal(deps: Pick<SyncDeps, 'signal' | 'concurrency'>): void {
  if (deps.signal) setMaxListeners(Math.max(200, 4 * (deps.concurrency ?? DEFAULT_CONCURRENCY)), deps.signal);
}

/** What a unit's fetch sees, with every default filled in. */
export function streamContext(deps: SyncDeps, log: Logger, now: Clock, rules: WindowRules): StreamContext {
  return {
    client: deps.client,
    account: deps.account,
    zone: deps.timezone,
    now,
    log,
    settleMs: deps.settleMs ?? SETTLE_MS,
    maxLateMs: deps.maxLateMs ?? MAX_LATE_MS,
    odometerLagMs: deps.odometerLagMs ?? ODOMETER_LAG_MS,
    horizons: new Map(),
    rules,
    maxWindowRecords: deps.maxWindowRecords ?? MAX_WINDOW_RECORDS,
    signal: deps.signal,
  };
}

/** The order units start in: by their stream's declared startOrder, then as planned. */
export function byCriticalPath(units: readonly Unit[], defs: readonly StreamDefinition[]): Unit[] {
  const order = new Map(defs.map((d) => [d.name, d.startOrder]));
  const of = (u: Unit) => order.get(u.stream) ?? Number.MAX_SAFE_INTEGER;
  return units
    .map((u, i) => ({ u, i }))
    .sort((a, b) => of(a.u) - of(b.u) || a.i - b.i)
    .map((x) => x.u);
}

export interface ExecuteInput {
  db: Database;
  account: string;
  units: readonly Unit[];
  definitions: readonly StreamDefinition[];
  ctx: StreamContext;
  run: RunLog;
  concurrency?: number;
  /** What a stream's writer may have waiting (bytes, estimated) before the stream fetches more. */
  maxWriteBacklogBytes?: number;
  signal?: AbortSignal;
  onProgress?: SyncDeps['onProgress'];
  afterCommit?: SyncDeps['afterCommit'];
  /** The run's stop, shared by the calls of one run: a stop seen by one stops the next (default: its own). */
  stop?: { by: unknown };
  /**
   * A small run's one writer (executePlan): every stream's windows are written on it, grouped
   * across streams; it is opened on the first write and left open. Without it: a writer
   * connection per ledger stream, closed at the end.
   */
  sharedWriter?: () => Promise<DuckDBConnection>;
  /**
   * What a unit of `units` waits for before its first request, and the context it then runs with
   * (executePlan: its vehicles' horizons, loaded once their odometer is stored); null: it starts
   * at once with `ctx`.
   */
  waitFor?: (unit: Unit) => Promise<StreamContext> | null;
  /** Called once per unit of `units` when it is through: stored, failed, split and done, or cut. */
  onUnitDone?: (unit: Unit) => void;
}

/** Runs every unit; returns the error that stopped the run, if one did. */
export async function executeUnits(x: ExecuteInput): Promise<{ stoppedBy: unknown }> {
  const { ctx, run } = x;
  const log = ctx.log;
  const limit = pLimit(x.concurrency ?? DEFAULT_CONCURRENCY);
  // A stream that declares maxInFlight has a limiter of its own: it never queues behind the rest.
  // Either slot covers the unit's requests only, not its commit (a slot held through a busy
  // commit spread the EV bucket's first 10 sends over 8 s, and with them every later window).
  const own = new Map(
    x.definitions.filter((d) => d.maxInFlight).map((d) => [d.name, pLimit(d.maxInFlight!)] as const),
  );
  // One writer connection per ledger stream: streams write disjoint rows, so their transactions
  // never conflict and DuckDB commits them in parallel; within a stream, windows are group-committed.
  // A small run writes every stream's windows on its one shared writer instead (executePlan).
  const shared = x.sharedWriter !== undefined;
  const writers = new Map<string, Promise<{ con: DuckDBConnection; committer: GroupCommitter }>>();
  const committers = new Map<string, GroupCommitter>();
  const maxBacklog = x.maxWriteBacklogBytes ?? MAX_WRITE_BACKLOG_BYTES;
  let grewBack = false; // the lowered pool's warning, once a run
  const writerFor = (ledgerStream: string) => {
    const stream = shared ? '*' : ledgerStream;
    let w = writers.get(stream);
    if (!w) {
      w = (x.sharedWriter?.() ?? x.db.connect()).then((c) => {
        // The daily facts and coverage of the days its windows replaced, in the same transaction (issue 29).
        // (per ledger stream the windows recorded: a visits window records the sites' too)
        // the reach of the trips the commit replaces, read before they are deleted (refreshFacts)
        let replacedReach: number | null = null;
        const committer = groupCommitter(c, x.account, {
          afterWrites: async (con, writes) => {
            const replaced = replacedRanges(writes);
            // several streams' windows in one commit of a small run's one writer: refreshed together
            // (not a large run's visits writer, whose windows record two: a stream's alone is cheaper there)
            if (shared && replaced.size > 1)
              return refreshFactsOfStreams(con, {
                account: x.account,
                zone: ctx.zone,
                ranges: replaced,
                replacedReachMs: replacedReach,
              });
            for (const [ledgerStream, ranges] of replaced)
              await refreshFacts(con, {
                account: x.account,
                zone: ctx.zone,
                stream: ledgerStream,
                ranges,
                replacedReachMs: ledgerStream === 'trips' ? replacedReach : null,
              });
          },
          beforeWrites: async (con, writes) => {
            const trips = replacedRanges(writes).get('trips');
            replacedReach = trips ? await storedTripsReach(con, x.account, trips) : null;
          },
          // a commit that did not fit in a lowered pool (SYNC_DB_MEMORY): the pool as it was before
          onOutOfMemory: async () => {
            const limit = await raiseLoweredMemory(x.db, log);
            if (limit !== null && !grewBack) {
              grewBack = true;
              log.warn(
                "a commit did not fit in the sync's lowered database memory limit: the run goes on with the limit it had before",
                { ...(shared ? {} : { stream: ledgerStream }), memory_limit: limit },
              );
            }
            return limit !== null;
          },
        });
        committers.set(stream, committer);
        return { con: c, committer };
      });
      writers.set(stream, w);
    }
    return w;
  };
  // Shared by the calls of one run that execute at once: a stop seen by one stops them all.
  const stop = x.stop ?? { by: null };
  const totals = new Map<string, number>();
  const doneBy = new Map<string, number>();
  for (const u of x.units) totals.set(u.stream, (totals.get(u.stream) ?? 0) + 1);
  const started = Date.now();
  const summarised = new Set<string>();
  /** The stream's one info line: when its last window is through, or (stopped) at the end. */
  const summarise = (stream: string) => {
    if (summarised.has(stream)) return;
    summarised.add(stream);
    const c = run.summary.streams[stream];
    const left = totals.get(stream)! - (doneBy.get(stream) ?? 0);
    log.info('stream', {
      stream,
      units: totals.get(stream),
      ...Object.fromEntries(Object.entries(c?.windows ?? {}).map(([k, v]) => [k, v])),
      ...(left > 0 ? { not_run: left } : {}),
      rows: c?.rows ?? 0,
      requests: c?.requests ?? 0,
      ms: Date.now() - started,
    });
  };

  const runUnit = async (unit: Unit, uctx: StreamContext): Promise<void> => {
    if (x.signal?.aborted || stop.by) return;
    const meter = newMeter();
    const t0 = Date.now();
    const label = windowLabel(unit.window);
    let cut = false; // stopped with the run: neither done nor failed, the next run pulls it
    try {
      // An endpoint it needs is refused (access.ts): its window stays a gap for the next run's probe.
      if (run.skips(unit.stream)) return;
      // The slot covers the requests only: a unit waiting for its commit does not hold back the
      // next unit's requests (the first window's burst goes out as fast as it can). Memory stays
      // bounded per window in flight: while its stream's writer has too much waiting, a unit
      // does not fetch; it gives its slot back and waits for the writer (other streams go on).
      const slot = own.get(unit.stream) ?? limit;
      const committer = () => committers.get(shared ? '*' : unit.ledgerStream);
      const backlog = () => committer()?.backlogBytes ?? 0;
      let backlogBytes = 0;
      let result: Awaited<ReturnType<Unit['fetch']>> | null = null;
      while (!result) {
        await committer()?.room(maxBacklog);
        if (stop.by || x.signal?.aborted) {
          cut = true;
          return;
        }
        result = await slot(() =>
          (backlogBytes = backlog()) >= maxBacklog ? null : unit.fetch(uctx, meter),
        );
      }
      if (stop.by) {
        cut = true;
        return;
      }
      if ('split' in result) {
        // Too many records to hold at once: its pieces run in its place, one after another (each
        // holds at most ctx.maxWindowRecords), each taking a slot of its stream's limiter for its
        // requests as any unit does.
        totals.set(unit.stream, totals.get(unit.stream)! + result.split.length);
        run.count(unit.stream, null, 0, meter.requests);
        log.debug('window split', { stream: unit.ledgerStream, window: label, pieces: result.split.length });
        for (const piece of result.split) await runUnit(piece, uctx);
        return;
      }
      const w = await writerFor(unit.ledgerStream);
      // What its paged reads received goes on the window's first ledger row, as its requests do.
      const entries = result.ledger.map((e, i) => (i === 0 && meter.read ? { read: meter.read, ...e } : e));
      const lw = ledgerWrite(x.account, run.runId, ctx.now(), unit.ledgerStream, unit.window, entries);
      await w.committer.submit({
        deletes: [...result.deletes, ...lw.deletes],
        inserts: [...result.inserts, lw.insert],
        custom: result.custom,
      });
      for (const e of result.ledger) run.count(unit.stream, e.status, 0, 0);
      run.count(unit.stream, null, result.rows, meter.requests);
      x.afterCommit?.(unit);
      log.debug('window', {
        stream: unit.ledgerStream,
        scope: unit.scope,
        window: label,
        rows: result.rows,
        requests: meter.requests,
        // What its writer had waiting when it fetched (bytes, estimated; it waited while too much).
        backlog_bytes: backlogBytes,
        ms: Date.now() - t0,
        status: result.ledger.map((e) => e.status).join('/'),
      });
    } catch (e) {
      if (x.signal?.aborted) return;
      if (stopsTheRun(e)) {
        // The run's stop reason says it once (run.ts); the windows in flight add nothing to it.
        stop.by ??= e;
        cut = true;
        run.count(unit.stream, null, 0, meter.requests);
        return;
      }
      if (isAccessRefusal(e)) {
        // Not permitted or not available: the stream is skipped for the run, nothing is failed.
        run.skip(unit.stream, e);
        run.count(unit.stream, null, 0, meter.requests);
        return;
      }
      run.count(unit.stream, 'failed', 0, meter.requests);
      run.fail(unit.ledgerStream, unit.scope, label, e);
      const w = await writerFor(unit.ledgerStream);
      await w.committer
        .submit({
          deletes: [],
          inserts: [],
          custom: (c) => recordFailedWindow(c, x.account, run.runId, ctx.now(), unit, e),
        })
        .catch((e2: unknown) => log.error('could not record a failed window', { error: describeError(e2) }));
    } finally {
      run.meter(meter);
      if (!cut) doneBy.set(unit.stream, (doneBy.get(unit.stream) ?? 0) + 1);
      if (doneBy.get(unit.stream) === totals.get(unit.stream)) summarise(unit.stream);
      x.onProgress?.({
        stream: unit.stream,
        done: doneBy.get(unit.stream) ?? 0,
        total: totals.get(unit.stream)!,
      });
    }
  };
  try {
    const start = async (unit: Unit) => {
      try {
        const waited = x.waitFor?.(unit);
        await runUnit(unit, waited ? await waited : ctx);
      } finally {
        x.onUnitDone?.(unit);
      }
    };
    await Promise.all(byCriticalPath(x.units, x.definitions).map(start));
    for (const stream of totals.keys()) summarise(stream);
  } finally {
    if (!shared)
      for (const w of writers.values()) await w.then((c) => c.con.closeSync()).catch(() => undefined);
  }
  return { stoppedBy: stop.by };
}

/** The streams whose answers give the vehicles' data horizons (pulled before the rest). */
const HORIZON_STREAMS = new Set(['odometer']);

/**
 * The vehicles whose data horizons a unit's statuses read: those its scope names (a vehicle id,
 * or a bulk unit's ids joined by commas) when its stream is per vehicle; null: the whole fleet's
 * (a fleet stream's `*`, or a scope that names no vehicle).
 */
export function horizonVehicles(unit: Unit, perVehicle: ReadonlySet<string>): string[] | null {
  if (!perVehicle.has(unit.stream)) return null;
  const ids = unit.scope.split(',');
  return ids.every((id) => /^\d+$/.test(id)) ? ids : null;
}

/**
 * The plan's critical bucket: the slowest alone (each bucket's least time from its units'
 * estimated requests), when that is more than one limit window and the horizon units do not draw
 * on it (starting early beside them would only queue behind them). Null: none.
 */
export function criticalBucket(
  horizonUnits: readonly Unit[],
  others: readonly Unit[],
  limits: Pick<SyncDeps, 'windowMs' | 'limits'>,
): string | null {
  const byBucket: Record<string, number> = {};
  for (const u of others) byBucket[u.bucket] = (byBucket[u.bucket] ?? 0) + u.estRequests;
  const opts = { windowMs: limits.windowMs, ...(limits.limits ? { limits: limits.limits } : {}) };
  let worst: { bucket: string; ms: number } | null = null;
  for (const [bucket, n] of Object.entries(byBucket)) {
    const ms = leastDurationMs({ [bucket]: n }, opts);
    if (!worst || ms > worst.ms) worst = { bucket, ms };
  }
  if (!worst || worst.ms <= 0 || horizonUnits.some((u) => u.bucket === worst.bucket)) return null;
  return worst.bucket;
}

/**
 * The horizon units, those of the vehicles the early units wait on first (so the critical
 * bucket's first sends leave early); else as planned.
 */
export function horizonOrder(horizonUnits: readonly Unit[], early: ReadonlySet<string>): Unit[] {
  return [
    ...horizonUnits.filter((u) => early.has(u.scope)),
    ...horizonUnits.filter((u) => !early.has(u.scope)),
  ];
}

/**
 * Units waiting for the vehicles' data horizons: each goes once the odometer units of the vehicles
 * it reads (`null`: of the whole fleet) are through and the horizons have been loaded again after
 * that (`load`, one at a time; the units freed meanwhile go after the next). A unit whose
 * vehicles have no odometer unit in the run goes at once: their horizons are those it started with.
 */
export function horizonGate(horizonUnits: readonly Unit[], load: () => Promise<void>) {
  interface Waiter {
    unmet: number;
    go: () => void;
  }
  const left = new Map<string, number>();
  for (const u of horizonUnits) left.set(u.scope, (left.get(u.scope) ?? 0) + 1);
  let fleetLeft = horizonUnits.length;
  const byVehicle = new Map<string, Waiter[]>();
  const fleet: Waiter[] = [];
  let ready: Waiter[] = [];
  let loading = false;
  const flush = (): void => {
    if (loading || !ready.length) return;
    const batch = ready;
    ready = [];
    loading = true;
    void load().then(() => {
      loading = false;
      for (const w of batch) w.go();
      flush();
    });
  };
  return {
    wait(vehicles: readonly string[] | null): Promise<void> {
      return new Promise((go) => {
        const w: Waiter = { unmet: 0, go };
        // its vehicles' odometer already through in this run: it waits for a load after now
        let stored = false;
        if (vehicles === null) {
          if (fleetLeft > 0) {
            w.unmet = 1;
            fleet.push(w);
          } else stored = horizonUnits.length > 0;
        } else
          for (const id of new Set(vehicles))
            if (left.get(id)) {
              w.unmet++;
              const list = byVehicle.get(id);
              if (list) list.push(w);
              else byVehicle.set(id, [w]);
            } else if (left.has(id)) stored = true;
        if (w.unmet > 0) return;
        if (!stored) return go();
        ready.push(w);
        flush();
      });
    },
    /** An odometer unit (its scope a vehicle) is through: stored, failed or cut. */
    through(scope: string): void {
      fleetLeft--;
      const n = left.get(scope)! - 1;
      left.set(scope, n);
      if (n === 0) {
        for (const w of byVehicle.get(scope) ?? []) if (--w.unmet === 0) ready.push(w);
        byVehicle.delete(scope);
      }
      if (fleetLeft === 0) ready.push(...fleet.splice(0));
      flush();
    },
  };
}

/**
 * Runs a sync's planned units. The odometer goes first: its answers give each vehicle's data
 * horizon, which decides whether the other streams' windows have settled (a vehicle silent for
 * days holds them). Every other unit waits for the whole fleet's odometer, then the horizons are
 * loaded again — except the units of the plan's critical bucket (criticalBucket: the EV energy's
 * 10 a minute on a long range) of a per-vehicle stream: those wait only for the odometer of their
 * own vehicles (asked first: horizonOrder), so that bucket starts beside the rest of the
 * odometer. Either way a unit's statuses read the horizons of its vehicles from this run's
 * odometer, observed before its own requests, as when the whole odometer came first.
 * Returns what stopped the run (null: nothing did).
 */
export async function executePlan(
  con: DuckDBConnection,
  deps: SyncDeps,
  x: { units: readonly Unit[]; definitions: readonly StreamDefinition[]; ctx: StreamContext; run: RunLog },
): Promise<unknown> {
  const { units, definitions, ctx, run } = x;
  const stop = { by: null as unknown };
  // A small run writes every stream's windows on one connection: a writer per ledger stream
  // (~12, each defining the refresh's macros, each commit its own BEGIN, COMMIT and ledger
  // delete) was most of a small fleet's CPU; at 5,000 vehicles one writer made the streams wait
  // on each other (docs/performance.md "Sync CPU per request").
  let opened: Promise<DuckDBConnection> | undefined;
  const sharedWriter =
    units.length <= (deps.sharedWriterMaxUnits ?? SHARED_WRITER_MAX_UNITS)
      ? () => (opened ??= deps.db.connect())
      : undefined;
  try {
    // The odometer units read the horizons as the run found them (`ctx`); the others read
    // `settled`'s, loaded again as the odometer they wait for is stored.
    await loadHorizons(con, ctx);
    const settled: StreamContext = { ...ctx, horizons: new Map(ctx.horizons) };
    const perVehicle = new Set(
      definitions.filter((d) => d.scope === 'vehicle' && !HORIZON_STREAMS.has(d.name)).map((d) => d.name),
    );
    const horizonUnits = units.filter((u) => HORIZON_STREAMS.has(u.stream));
    const rest = units.filter((u) => !HORIZON_STREAMS.has(u.stream));
    const critical = criticalBucket(horizonUnits, rest, deps);
    // the vehicles whose horizons each early unit reads (null: not early, it waits for the fleet's)
    const earlyOf = (u: Unit) => (u.bucket === critical ? horizonVehicles(u, perVehicle) : null);
    const early = new Set(rest.flatMap((u) => earlyOf(u) ?? []));
    const gate = horizonGate(horizonUnits, () =>
      stop.by || deps.signal?.aborted
        ? Promise.resolve()
        : loadHorizons(con, settled).catch((e: unknown) => {
            stop.by ??= e; // the units it frees see the stop and are cut
          }),
    );
    const waitFor = (u: Unit) =>
      HORIZON_STREAMS.has(u.stream) ? null : gate.wait(earlyOf(u)).then(() => settled);
    const onUnitDone = (u: Unit) => {
      if (HORIZON_STREAMS.has(u.stream)) gate.through(u.scope);
    };
    await executeUnits({
      ...deps,
      units: [...horizonOrder(horizonUnits, early), ...rest],
      definitions,
      ctx,
      run,
      stop,
      sharedWriter,
      waitFor,
      onUnitDone,
    });
    return stop.by;
  } finally {
    await opened?.then((c) => c.closeSync()).catch(() => undefined);
  }
}
