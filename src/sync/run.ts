/**
 * One sync run: snapshots, then every planned unit of work with bounded concurrency (the client's
 * rate buckets pace the requests), each window committed in its own transaction on one writer
 * connection. A failed window is recorded (ledger + runs.errors) and the run goes on; the run is
 * `ok` only when every window succeeded. A run row is written at the start and completed at the
 * end; a `running` row left by a killed process is marked `interrupted` by the next run.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import { checkApiChanges } from '../changes/index.ts';
import { FleetsyncError, describeError, isFleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import { queryJs } from '../store/queries.ts';
import { localDate, addDays } from '../time.ts';
import { groupCommitter, type GroupCommitter } from './commit.ts';
import { insertLedger, ledgerRange, ledgerRows, type LedgerEntry } from './ledger.ts';
import { buildPlan, type PlannedVehicle } from './planner.ts';
import { ODOMETER_LAG_MS } from './streams/odometer.ts';
import { syncCarpool, syncGeofences, syncVehicles } from './streams/snapshots.ts';
import {
  STREAMS,
  type PlanSummary,
  type RunSummary,
  type StreamName,
  type SyncProgress,
  type SyncRequest,
} from './types.ts';
import type { StreamContext, Unit } from './unit.ts';
import { dayRange, type Window } from './windows.ts';

export interface SyncDeps {
  db: Database;
  client: FleetClient;
  account: string;
  timezone: string;
  baseUrl: string;
  /** The API's rate-limit window (ms); used for the plan's least duration. */
  windowMs: number;
  limits?: Partial<Record<BucketName, number>>;
  log: Logger;
  now?: () => number;
  signal?: AbortSignal;
  /** Look-back for late data (default 72 h). */
  settleMs?: number;
  /** Stale-looking windows are accepted this long after their end (default 7 days). */
  maxLateMs?: number;
  /** Odometer windows whose last event is this far before their end are incomplete (default 12 h). */
  odometerLagMs?: number;
  /** Units of work in flight at once (default 16); the buckets pace the requests. */
  concurrency?: number;
  fuelPath?: 'per_vehicle_get' | 'bulk_post';
  onProgress?: (p: SyncProgress) => void;
  /** The release-notes records URL (default: derived from baseUrl); `false` skips the check. */
  changelogUrl?: string | false;
  /** Test hook: called after each committed window (e.g. to kill the process at a chosen point). */
  afterCommit?: (unit: Unit) => void;
}

const DEFAULT_FIRST_RUN_DAYS = 30;
/** Look-back for late data: windows ending less than this before now are pulled again later. */
const SETTLE_MS = 72 * 3_600_000;
/** Accounts with a sync running in this process, per database (one run per account at a time). */
const running = new WeakMap<Database, Set<string>>();

/** Resolves the local-day range of a request: explicit, or incremental from the ledger. */
export async function resolveRange(con: DuckDBConnection, deps: SyncDeps, req: SyncRequest): Promise<Window> {
  const now = (deps.now ?? Date.now)();
  const today = localDate(now, deps.timezone);
  if (req.fromDay || req.toDay) {
    const from = req.fromDay ?? addDays(req.toDay ?? today, -(DEFAULT_FIRST_RUN_DAYS - 1));
    const to = req.toDay ?? today;
    if (to < from) throw new FleetsyncError('E_USAGE', `--to ${to} is before --from ${from}`);
    return dayRange(from, to, deps.timezone);
  }
  const [first] = await queryJs(con, 'sync/coverage_start', [deps.account]);
  const start = first?.first_start as Date | null | undefined;
  const from = start
    ? localDate(start.getTime(), deps.timezone)
    : addDays(today, -(DEFAULT_FIRST_RUN_DAYS - 1));
  return dayRange(from < today ? from : today, today, deps.timezone);
}

async function storedVehicles(con: DuckDBConnection, account: string): Promise<PlannedVehicle[]> {
  const rows = await queryJs(con, 'sync/planned_vehicles', [account]);
  return rows.map((r) => ({
    vehicle_id: Number(r.vehicle_id),
    registration: String(r.registration),
    fuel_canbus_consumed: Boolean(r.fuel_canbus_consumed),
    fuel_level: Boolean(r.fuel_level),
  }));
}

function streamsOf(req: SyncRequest): Set<StreamName> {
  return new Set(req.streams && req.streams.length ? req.streams : STREAMS);
}

export async function planSync(deps: SyncDeps, req: SyncRequest): Promise<PlanSummary> {
  const con = await deps.db.connect();
  try {
    const range = await resolveRange(con, deps, req);
    const { summary } = await buildPlan(con, {
      account: deps.account,
      zone: deps.timezone,
      range,
      streams: streamsOf(req),
      vehicles: await storedVehicles(con, deps.account),
      runId: 'plan',
      windowMs: deps.windowMs,
      limits: deps.limits,
      fuelPath: deps.fuelPath,
      settledBeforeMs: (deps.now ?? Date.now)() - (deps.settleMs ?? SETTLE_MS),
    });
    return summary;
  } finally {
    con.closeSync();
  }
}

export async function runSync(deps: SyncDeps, req: SyncRequest): Promise<RunSummary> {
  const busy = running.get(deps.db) ?? new Set<string>();
  running.set(deps.db, busy);
  if (busy.has(deps.account))
    throw new FleetsyncError(
      'E_SYNC_BUSY',
      `a sync of account ${deps.account} is already running in this process`,
    );
  busy.add(deps.account);
  // Every request in flight (up to the concurrency, plus a window's pages asked at once) listens
  // on the stop signal: more than Node's default of 10 is expected, not a leak.
  if (deps.signal) setMaxListeners(Math.max(200, 4 * (deps.concurrency ?? 16)), deps.signal);
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ account: deps.account });
  const con = await deps.db.connect();
  const runId = `${new Date(now()).toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;
  const summary: RunSummary = {
    run_id: runId,
    account: deps.account,
    outcome: 'ok',
    started_ms: now(),
    ended_ms: 0,
    requests: 0,
    retries: 0,
    http429ByBucket: {},
    streams: {},
    errors: [],
  };
  const meterTotal: RequestMeter = { requests: 0, retries: 0, http429: 0 };
  const writers = new Map<string, Promise<{ con: DuckDBConnection; committer: GroupCommitter }>>();
  const http429Before = { ...deps.client.stats().http429ByBucket };
  const fail = (stream: string, scope: string, window: string, e: unknown) => {
    summary.outcome = 'partial';
    if (summary.errors.length < 50) summary.errors.push({ stream, scope, window, reason: describeError(e) });
    log.warn('window failed', { stream, scope, window, error: describeError(e) });
  };
  try {
    const range = await resolveRange(con, deps, req);
    const streams = streamsOf(req);
    await con.run(
      "UPDATE runs SET outcome = 'interrupted', ended_at = now() WHERE account = $1 AND outcome = 'running'",
      [deps.account],
    );
    await con.run(
      'INSERT INTO runs (run_id, account, started_at, outcome, trigger, range_from, range_to, streams) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        runId,
        deps.account,
        new Date(summary.started_ms).toISOString(),
        'running',
        req.trigger,
        localDate(range.startMs, deps.timezone),
        localDate(range.endMs - 1, deps.timezone),
        [...streams].join(','),
      ],
    );
    await con.run(
      'INSERT OR REPLACE INTO accounts (account, base_url, timezone, updated_at) VALUES ($1, $2, $3, now())',
      [deps.account, deps.baseUrl, deps.timezone],
    );
    log.info('sync started', {
      run: runId,
      from: localDate(range.startMs, deps.timezone),
      to: localDate(range.endMs - 1, deps.timezone),
      streams: [...streams].join(','),
    });

    // Snapshots first: the per-vehicle streams need the vehicle list.
    let vehicles = await storedVehicles(con, deps.account);
    const snap = async (name: StreamName, fn: (m: RequestMeter) => Promise<number>) => {
      const m: RequestMeter = { requests: 0, retries: 0, http429: 0 };
      const t0 = Date.now();
      try {
        const rows = await fn(m);
        bump(summary, name, 'done', rows, m.requests);
        log.info('snapshot', { stream: name, rows, requests: m.requests, ms: Date.now() - t0 });
      } catch (e) {
        bump(summary, name, 'failed', 0, m.requests);
        fail(name, '*', 'snapshot', e);
      } finally {
        addMeter(meterTotal, m);
      }
    };
    const needVehicles = streams.has('vehicles') || streams.has('odometer') || streams.has('fuel');
    if (needVehicles)
      await snap('vehicles', async (m) => {
        const list = await syncVehicles(deps.client, con, deps.account, now(), m, deps.signal);
        vehicles = await storedVehicles(con, deps.account);
        return list.length;
      });
    if (streams.has('geofences') || streams.has('visits'))
      await snap('geofences', (m) => syncGeofences(deps.client, con, deps.account, now(), m, deps.signal));
    if (streams.has('carpool') || streams.has('bookings'))
      await snap('carpool', (m) => syncCarpool(deps.client, con, deps.account, now(), m, deps.signal));

    const { units, summary: plan } = await buildPlan(con, {
      account: deps.account,
      zone: deps.timezone,
      range,
      streams,
      vehicles,
      runId,
      windowMs: deps.windowMs,
      limits: deps.limits,
      fuelPath: deps.fuelPath,
      settledBeforeMs: now() - (deps.settleMs ?? SETTLE_MS),
    });
    log.info('plan', {
      units: units.length,
      least: Math.round(plan.leastDurationMs),
      fuel: plan.fuelPath.chosen,
    });

    const ctx: StreamContext = {
      client: deps.client,
      account: deps.account,
      zone: deps.timezone,
      now,
      log,
      settleMs: deps.settleMs ?? SETTLE_MS,
      maxLateMs: deps.maxLateMs ?? 7 * 24 * 3_600_000,
      odometerLagMs: deps.odometerLagMs ?? ODOMETER_LAG_MS,
      signal: deps.signal,
    };
    const limit = pLimit(deps.concurrency ?? 16);
    // A fleet-wide trips window holds a month of the whole fleet's trips: one in memory at a time
    // (its pages are fetched several at once, see paginate.ts). Its own limiter, not `limit`: the
    // trips windows are the longest request chain, so the next one must not queue behind the
    // per-vehicle units (it then spilled into the next limit window and made the tail).
    const heavy: Partial<Record<StreamName, ReturnType<typeof pLimit>>> = { trips: pLimit(1) };
    // One writer connection per stream: streams write disjoint rows, so their transactions never
    // conflict and DuckDB commits them in parallel; within a stream, windows are group-committed.
    const writerFor = (stream: string) => {
      let w = writers.get(stream);
      if (!w) {
        w = deps.db.connect().then((c) => ({
          con: c,
          committer: groupCommitter(c, deps.account),
        }));
        writers.set(stream, w);
      }
      return w;
    };
    let storageError: unknown = null;
    const totals = new Map<StreamName, number>();
    const doneBy = new Map<StreamName, number>();
    for (const u of units) totals.set(u.stream, (totals.get(u.stream) ?? 0) + 1);

    const runUnit = async (unit: Unit): Promise<void> => {
      if (deps.signal?.aborted || storageError) return;
      const meter: RequestMeter = { requests: 0, retries: 0, http429: 0 };
      const t0 = Date.now();
      const label = `${new Date(unit.window.startMs).toISOString()}/${new Date(unit.window.endMs).toISOString()}`;
      try {
        // The slot covers the requests only: a unit waiting for its commit does not hold back
        // the next unit's requests (the first window's burst goes out as fast as it can).
        // A heavy unit has its own limiter: it never queues behind the per-vehicle units.
        const result = heavy[unit.stream]
          ? await unit.fetch(ctx, meter)
          : await limit(() => unit.fetch(ctx, meter));
        if (storageError) return;
        const w = await writerFor(unit.ledgerStream);
        await w.committer.submit({
          deletes: [
            ...result.deletes,
            ...[...new Set(result.ledger.map((e) => e.scope))].map((scope) =>
              ledgerRange(unit.ledgerStream, scope, unit.window),
            ),
          ],
          inserts: [
            ...result.inserts,
            { table: 'ledger', rows: ledgerRows(deps.account, runId, now(), result.ledger) },
          ],
          custom: result.custom,
        });
        const rows = result.rows;
        for (const e of result.ledger) bump(summary, unit.stream, e.status, 0, 0);
        bump(summary, unit.stream, null, rows, meter.requests);
        deps.afterCommit?.(unit);
        log.info('window', {
          stream: unit.ledgerStream,
          scope: unit.scope,
          window: label,
          rows,
          requests: meter.requests,
          ms: Date.now() - t0,
          status: result.ledger.map((e) => e.status).join('/'),
        });
      } catch (e) {
        if (deps.signal?.aborted) return;
        bump(summary, unit.stream, 'failed', 0, meter.requests);
        fail(unit.ledgerStream, unit.scope, label, e);
        if (isStorageError(e)) {
          // A full or read-only disk: stop writing at once (DuckDB may abort on further writes).
          storageError ??= e;
          return;
        }
        const w = await writerFor(unit.ledgerStream);
        await w.committer
          .submit({
            deletes: [],
            inserts: [],
            custom: (c) => recordFailure(c, deps.account, runId, now(), unit, e),
          })
          .catch((e2: unknown) =>
            log.error('could not record a failed window', { error: describeError(e2) }),
          );
      } finally {
        addMeter(meterTotal, meter);
        doneBy.set(unit.stream, (doneBy.get(unit.stream) ?? 0) + 1);
        deps.onProgress?.({
          stream: unit.stream,
          done: doneBy.get(unit.stream)!,
          total: totals.get(unit.stream)!,
        });
      }
    };
    await Promise.all(
      byCriticalPath(units).map((unit) => {
        const own = heavy[unit.stream];
        return own ? own(() => runUnit(unit)) : runUnit(unit);
      }),
    );
    for (const w of writers.values()) (await w).con.closeSync();
    writers.clear();
    if (deps.changelogUrl !== false && !deps.signal?.aborted && !storageError) {
      const check = await checkApiChanges({
        db: con,
        baseUrl: deps.baseUrl,
        ...(deps.changelogUrl ? { feedUrl: deps.changelogUrl } : {}),
        log,
        now,
      });
      summary.apiChanges = {
        status: check.status,
        newReleases: check.newReleases.length,
        flagged: check.flagged.map((f) => ({
          version: f.version,
          kind: f.kind,
          endpoints: f.syncEndpoints,
          text: f.text,
        })),
      };
      if (check.flagged.length)
        log.warn('API release notes flag a change to an endpoint the sync uses', {
          releases: [...new Set(check.flagged.map((f) => f.version))].join(','),
          endpoints: [...new Set(check.flagged.flatMap((f) => f.syncEndpoints))].join(','),
        });
    }
    if (storageError) {
      summary.outcome = 'failed';
      summary.errors.push({
        stream: '*',
        scope: '*',
        window: '*',
        reason: `stopped: ${describeError(storageError)}`,
      });
    }
    if (deps.signal?.aborted) {
      summary.outcome = 'partial';
      summary.errors.push({
        stream: '*',
        scope: '*',
        window: '*',
        reason: 'interrupted: the run was asked to stop',
      });
    }
  } catch (e) {
    summary.outcome = 'failed';
    summary.errors.push({ stream: '*', scope: '*', window: '*', reason: describeError(e) });
    log.error('sync failed', { error: describeError(e) });
    if (isFleetsyncError(e, 'E_USAGE')) {
      busy.delete(deps.account);
      con.closeSync();
      throw e;
    }
  }
  const stats = deps.client.stats();
  summary.ended_ms = now();
  summary.requests = meterTotal.requests;
  summary.retries = meterTotal.retries;
  // This run's 429s only (a client may serve several runs).
  summary.http429ByBucket = Object.fromEntries(
    Object.entries(stats.http429ByBucket)
      .map(([b, n]) => [b, n - (http429Before[b] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
  try {
    await con.run(
      `UPDATE runs SET ended_at = $2, outcome = $3, requests = $4, retries = $5, http_429 = $6, rows_by_stream = $7,
         windows_by_stream = $8, errors = $9, notes = $10 WHERE run_id = $1`,
      [
        runId,
        new Date(summary.ended_ms).toISOString(),
        summary.outcome,
        summary.requests,
        summary.retries,
        JSON.stringify(summary.http429ByBucket),
        JSON.stringify(Object.fromEntries(Object.entries(summary.streams).map(([k, v]) => [k, v.rows]))),
        JSON.stringify(Object.fromEntries(Object.entries(summary.streams).map(([k, v]) => [k, v.windows]))),
        JSON.stringify(summary.errors.slice(0, 20)),
        apiChangesNote(summary),
      ],
    );
  } finally {
    for (const w of writers.values()) await w.then((x) => x.con.closeSync()).catch(() => undefined);
    busy.delete(deps.account);
    con.closeSync();
  }
  log.info('sync finished', {
    run: runId,
    outcome: summary.outcome,
    requests: summary.requests,
    retries: summary.retries,
    ms: summary.ended_ms - summary.started_ms,
  });
  return summary;
}

/**
 * The order units start in: longest request chains first (list scheduling by critical path).
 * Fleet-wide windows are paged (page 1 must answer before the rest are asked) and cost the API
 * most per request; per-vehicle windows are one cheap request each. Started first, the paged
 * streams get through while the first limit window has room, and what spills into the next
 * window is independent one-request units that all go out at once when slots free up.
 */
const START_ORDER: Record<StreamName, number> = {
  trips: 0,
  visits: 1,
  bookings: 2,
  odometer: 3,
  fuel: 4,
  vehicles: 5,
  geofences: 5,
  carpool: 5,
};

function byCriticalPath(units: readonly Unit[]): Unit[] {
  return units
    .map((u, i) => ({ u, i }))
    .sort((a, b) => START_ORDER[a.u.stream] - START_ORDER[b.u.stream] || a.i - b.i)
    .map((x) => x.u);
}

function apiChangesNote(s: RunSummary): string | null {
  const c = s.apiChanges;
  if (!c) return null;
  if (c.status === 'error') return 'api changes: release notes could not be read';
  const flagged = c.flagged.length
    ? `; ${c.flagged.length} change(s) to endpoints the sync uses: ${c.flagged.map((f) => `${f.version} ${f.kind} ${f.endpoints.join(' ')}`).join('; ')}`
    : '';
  return `api changes: ${c.status}${c.newReleases ? `, ${c.newReleases} new release(s)` : ''}${flagged}`;
}

/** A failed window: recorded in the ledger only where nothing is stored yet (never loses data). Runs inside a committer transaction. */
async function recordFailure(
  con: DuckDBConnection,
  account: string,
  runId: string,
  nowMs: number,
  unit: Unit,
  e: unknown,
) {
  const scopes = unit.scope.split(',');
  const sample =
    isFleetsyncError(e) && typeof e.details?.sample === 'string' ? e.details.sample.slice(0, 300) : null;
  const entries: LedgerEntry[] = [];
  for (const scope of scopes) {
    const r = await con.runAndReadAll(
      'SELECT count(*)::INTEGER AS n FROM ledger WHERE account = $1 AND stream = $2 AND scope = $3 AND window_start < $5 AND window_end > $4',
      [
        account,
        unit.ledgerStream,
        scope,
        new Date(unit.window.startMs).toISOString(),
        new Date(unit.window.endMs).toISOString(),
      ],
    );
    if (Number(r.getRowObjectsJS()[0]?.n ?? 0) > 0) continue;
    entries.push({
      stream: unit.ledgerStream,
      scope,
      startMs: unit.window.startMs,
      endMs: unit.window.endMs,
      status: 'failed',
      rows: 0,
      requests: 0,
      reason: describeError(e).slice(0, 500),
      sample,
    });
  }
  if (entries.length) await insertLedger(con, account, runId, nowMs, entries);
}

/** A failure of the disk under the database rather than of the data: no point writing on. */
function isStorageError(e: unknown): boolean {
  const text =
    e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? '')}` : String(e);
  return /No space left on device|disk is full|Read-only file system|read-only mode|FATAL Error/i.test(text);
}

function bump(s: RunSummary, stream: StreamName, status: string | null, rows: number, requests: number) {
  const c = (s.streams[stream] ??= { windows: {}, rows: 0, requests: 0 });
  if (status)
    c.windows[status as keyof typeof c.windows] = (c.windows[status as keyof typeof c.windows] ?? 0) + 1;
  c.rows += rows;
  c.requests += requests;
}

function addMeter(a: RequestMeter, b: RequestMeter) {
  a.requests += b.requests;
  a.retries += b.retries;
  a.http429 += b.http429;
}
