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
import type { Database } from '../store/db.ts';
import { storageFailure } from '../store/storage-error.ts';
import type { Clock } from '../time.ts';
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
  const writerFor = (ledgerStream: string) => {
    const stream = shared ? '*' : ledgerStream;
    let w = writers.get(stream);
    if (!w) {
      w = (x.sharedWriter?.() ?? x.db.connect()).then((c) => {
        // The daily facts and coverage of the days its windows replaced, in the same transaction (issue 29).
        // (per ledger stream the windows recorded: a visits window records the sites' too)
        // the reach of the trips the commit replaces, read before they are deleted (refreshFacts)
        let replacedReach: number | null = null;
        const committer = groupCommitter(
          c,
          x.account,
          undefined,
          async (con, writes) => {
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
          async (con, writes) => {
            const trips = replacedRanges(writes).get('trips');
            replacedReach = trips ? await storedTripsReach(con, x.account, trips) : null;
          },
        );
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

  const runUnit = async (unit: Unit): Promise<void> => {
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
        result = await slot(() => ((backlogBytes = backlog()) >= maxBacklog ? null : unit.fetch(ctx, meter)));
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
        for (const piece of result.split) await runUnit(piece);
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
    await Promise.all(byCriticalPath(x.units, x.definitions).map((unit) => runUnit(unit)));
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
 * Runs a sync's planned units. The odometer goes first: its answers give each vehicle's data
 * horizon, which decides whether the other streams' windows have settled (a vehicle silent for
 * days holds them); then every other unit. Returns what stopped the run (null: nothing did).
 */
export async function executePlan(
  con: DuckDBConnection,
  deps: SyncDeps,
  x: { units: readonly Unit[]; definitions: readonly StreamDefinition[]; ctx: StreamContext; run: RunLog },
): Promise<unknown> {
  const { units, definitions, ctx, run } = x;
  const stop = { by: null as unknown };
  // A small run writes every stream's windows, in both calls, on one connection: a writer per
  // ledger stream (~12, each defining the refresh's macros, each commit its own BEGIN, COMMIT and
  // ledger delete) was most of a small fleet's CPU; at 5,000 vehicles one writer made the streams
  // wait on each other (docs/performance.md "Sync CPU per request").
  let opened: Promise<DuckDBConnection> | undefined;
  const sharedWriter =
    units.length <= (deps.sharedWriterMaxUnits ?? SHARED_WRITER_MAX_UNITS)
      ? () => (opened ??= deps.db.connect())
      : undefined;
  try {
    await loadHorizons(con, ctx);
    const horizons = units.filter((u) => HORIZON_STREAMS.has(u.stream));
    await executeUnits({ ...deps, units: horizons, definitions, ctx, run, stop, sharedWriter });
    if (stop.by || deps.signal?.aborted) return stop.by;
    await loadHorizons(con, ctx);
    const rest = units.filter((u) => !HORIZON_STREAMS.has(u.stream));
    await executeUnits({ ...deps, units: rest, definitions, ctx, run, stop, sharedWriter });
    return stop.by;
  } finally {
    await opened?.then((c) => c.closeSync()).catch(() => undefined);
  }
}
