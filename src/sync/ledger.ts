/**
 * The window ledger, in one module: one row per unit of work (queries/schema/002_ledger.sql).
 * A grid window is covered when ledger windows of status done or flagged tile it completely;
 * incomplete, failed or missing parts make it a gap to pull. Re-pulling a grid window replaces
 * every ledger row inside it in the same transaction as its data. A failed window is recorded
 * only where nothing is stored yet. Its SQL: queries/sync/ledger_*.sql (the reports read it
 * through the complete_through macro).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReadTally } from '../api/paginate.ts';
import { describeError, isFleetsyncError } from '../errors.ts';
import { execute, queryJs } from '../store/queries.ts';
import { appendRows, type RangeDelete, type Row } from '../store/write.ts';
import { DAY_MS, iso, type Clock } from '../time.ts';
import type { TableRows } from './commit.ts';
import { cutAt, settledCut, type Window } from './windows.ts';

/** Ledger statuses of a window. */
export type WindowStatus = 'done' | 'incomplete' | 'flagged' | 'failed';

/** A ledger stream name: trips, odometer, fuel_consumed, fuel_level, fuel_fills, visits, bookings (or a declared stream's). */
export type LedgerStream = string;

export interface LedgerEntry {
  stream: LedgerStream;
  scope: string;
  startMs: number;
  endMs: number;
  status: WindowStatus;
  rows: number;
  requests: number;
  reason?: string | null;
  sample?: string | null;
  lastEventMs?: number | null;
  /** What the window's paged reads received (on its first row, as its requests): see 040_ledger_announced.sql. */
  read?: ReadTally | null;
}

export interface LedgerRowRead {
  scope: string;
  startMs: number;
  endMs: number;
  status: WindowStatus;
  fetchedMs: number;
}

/**
 * Ledger rows of every stream of an account overlapping [fromMs, toMs), by stream and scope: one
 * statement for the plan's streams (a statement each cost ~1 ms of CPU, most of it DuckDB's
 * planning, and the plan asks about ten).
 */
export async function readLedgers(
  con: DuckDBConnection,
  account: string,
  range: Window,
): Promise<Map<LedgerStream, Map<string, LedgerRowRead[]>>> {
  const rows = await queryJs(con, 'sync/ledger_range', [account, iso(range.startMs), iso(range.endMs)]);
  const out = new Map<LedgerStream, Map<string, LedgerRowRead[]>>();
  for (const r of rows) {
    const stream = String(r.stream);
    const scope = String(r.scope);
    let byScope = out.get(stream);
    if (!byScope) out.set(stream, (byScope = new Map()));
    const list = byScope.get(scope) ?? [];
    list.push({
      scope,
      startMs: (r.window_start as Date).getTime(),
      endMs: (r.window_end as Date).getTime(),
      status: String(r.status) as WindowStatus,
      fetchedMs: (r.fetched_at as Date).getTime(),
    });
    byScope.set(scope, list);
  }
  return out;
}

/** True when done/flagged ledger windows tile `w` completely. */
export function isCovered(w: Window, rows: readonly LedgerRowRead[] | undefined): boolean {
  if (!rows) return false;
  const good = rows
    .filter(
      (r) => (r.status === 'done' || r.status === 'flagged') && r.endMs > w.startMs && r.startMs < w.endMs,
    )
    .sort((a, b) => a.startMs - b.startMs);
  let at = w.startMs;
  for (const r of good) {
    if (r.startMs > at) return false;
    at = Math.max(at, r.endMs);
    if (at >= w.endMs) return true;
  }
  return at >= w.endMs;
}

export async function deleteLedgerWindow(
  con: DuckDBConnection,
  account: string,
  stream: LedgerStream,
  scope: string,
  w: Window,
): Promise<void> {
  await execute(con, 'sync/ledger_delete_window', [account, stream, scope, iso(w.startMs), iso(w.endMs)]);
}

/** The ledger rows a window's entries become. */
export function ledgerRows(
  account: string,
  runId: string,
  fetchedMs: number,
  entries: readonly LedgerEntry[],
): Row[] {
  return entries.map((e) => ({
    account,
    stream: e.stream,
    scope: e.scope,
    window_start: e.startMs,
    window_end: e.endMs,
    status: e.status,
    rows: e.rows,
    requests: e.requests,
    fetched_at: fetchedMs,
    run_id: runId,
    reason: e.reason ?? null,
    sample: e.sample ?? null,
    last_event_at: e.lastEventMs ?? null,
    announced: e.read?.announced ?? null,
    kept: e.read?.kept ?? null,
    duplicates: e.read?.duplicates ?? null,
  }));
}

/** Every ledger row of `scope` inside `w` (replaced when the window is pulled again). */
export const ledgerRange = (stream: LedgerStream, scope: string, w: Window): RangeDelete => ({
  table: 'ledger',
  eq: { stream, scope },
  within: ['window_start', 'window_end'],
  startMs: w.startMs,
  endMs: w.endMs,
});

/**
 * A pulled window's ledger write: every ledger row inside the window, for each ledger stream and
 * scope its entries name, replaced by the entries (applied in the window's own transaction, with its data).
 */
export function ledgerWrite(
  account: string,
  runId: string,
  fetchedMs: number,
  stream: LedgerStream,
  w: Window,
  entries: readonly LedgerEntry[],
): { deletes: RangeDelete[]; insert: TableRows & { rows: Row[] } } {
  return {
    // per ledger stream and scope its entries name (a unit may record several ledger streams)
    deletes: [...new Map(entries.map((e) => [`${e.stream || stream} ${e.scope}`, e])).values()].map((e) =>
      ledgerRange(e.stream || stream, e.scope, w),
    ),
    insert: { table: 'ledger', rows: ledgerRows(account, runId, fetchedMs, entries) },
  };
}

export async function insertLedger(
  con: DuckDBConnection,
  account: string,
  runId: string,
  fetchedMs: number,
  entries: readonly LedgerEntry[],
): Promise<void> {
  await appendRows(con, 'ledger', ledgerRows(account, runId, fetchedMs, entries));
}

/**
 * A failed window (scopes comma-separated for a bulk unit): recorded `failed` in the ledger only
 * where nothing is stored yet, so a failure never hides data an earlier run stored. Runs inside a
 * committer transaction.
 */
export async function recordFailedWindow(
  con: DuckDBConnection,
  account: string,
  runId: string,
  nowMs: number,
  failed: { ledgerStream: LedgerStream; scope: string; window: Window },
  e: unknown,
): Promise<void> {
  const sample =
    isFleetsyncError(e) && typeof e.details?.sample === 'string' ? e.details.sample.slice(0, 300) : null;
  // A read whose pages did not add up: what page 1 announced, and that nothing was kept.
  const announced = isFleetsyncError(e, 'E_INCOMPLETE') ? e.details?.announced : undefined;
  const read = typeof announced === 'number' ? { announced, kept: 0, duplicates: 0 } : null;
  const entries: LedgerEntry[] = [];
  for (const scope of failed.scope.split(',')) {
    const [r] = await queryJs(con, 'sync/ledger_stored_overlap', [
      account,
      failed.ledgerStream,
      scope,
      iso(failed.window.startMs),
      iso(failed.window.endMs),
    ]);
    if (Number(r?.n ?? 0) > 0) continue;
    entries.push({
      stream: failed.ledgerStream,
      scope,
      startMs: failed.window.startMs,
      endMs: failed.window.endMs,
      status: 'failed',
      rows: 0,
      requests: 0,
      reason: describeError(e).slice(0, 500),
      sample,
      read,
    });
  }
  if (entries.length) await insertLedger(con, account, runId, nowMs, entries);
}

/** A vehicle's data horizon: how far its data has reached the API (its latest odometer last_event_ts). */
export interface Horizon {
  registration: string;
  ms: number;
  /** How far the API has answered for the vehicle's odometer (its latest window that did not fail). */
  askedMs: number;
}

/**
 * What the ledger's statuses of a window read of a unit's context (StreamContext, unit.ts, is
 * one): the account and its zone, the clock, the look-back and the maximum lateness, and the
 * vehicles' data horizons.
 */
export interface SettleContext {
  account: string;
  zone: string;
  now: Clock;
  /** Windows ending less than this long before now may still receive late data: re-pulled later. */
  settleMs: number;
  /** A window whose end is this far in the past is accepted even if its data looks stale. */
  maxLateMs: number;
  /**
   * Each vehicle's data horizon by scope (vehicle id): its latest odometer last_event_ts. A window
   * is settled only once the horizons of its scope reach its end (settledStatus).
   */
  horizons: Map<string, Horizon>;
  /** Odometer data this much older than the window's end (or now) means the window is incomplete. */
  odometerLagMs: number;
}

/** Reads every vehicle's data horizon from the ledger into `ctx.horizons` (replacing what it held). */
export async function loadHorizons(
  con: DuckDBConnection,
  ctx: Pick<SettleContext, 'account' | 'horizons' | 'odometerLagMs'>,
): Promise<void> {
  const into = ctx.horizons;
  const rows = await queryJs(con, 'sync/vehicle_horizons', [ctx.account, ctx.odometerLagMs]);
  into.clear();
  for (const r of rows)
    into.set(String(r.scope), {
      registration: String(r.registration),
      ms: (r.horizon as Date).getTime(),
      askedMs: r.asked instanceof Date ? r.asked.getTime() : -Infinity,
    });
}
const isoMinute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;

/**
 * The vehicles of `scope` ('*': the fleet) whose data has not reached the end of `w`. A vehicle
 * silent since before `w` started by more than the maximum lateness is taken as out of service
 * and holds nothing (else a retired tracker would hold every later window open).
 */
export function lateVehicles(ctx: SettleContext, w: Window, scope: string, until = w.endMs): Horizon[] {
  const of = scope === '*' ? [...ctx.horizons.values()] : [ctx.horizons.get(scope)].filter((h) => !!h);
  return of.filter((h) => h.ms < until && w.startMs < h.ms + ctx.maxLateMs);
}

/**
 * A window whose vehicles are late (their data has not reached `until`, by default its end):
 * `incomplete` (pulled again while it waits), or, once the maximum lateness has passed since its
 * end, `flagged` "accepted incomplete" with the reason. Null when no vehicle of the scope is late.
 */
export function lateStatus(
  ctx: SettleContext,
  w: Window,
  scope: string,
  until = w.endMs,
): { status: 'incomplete' | 'flagged'; reason: string } | null {
  const late = lateVehicles(ctx, w, scope, until).sort((a, b) => a.ms - b.ms);
  if (late.length === 0) return null;
  const who = late
    .slice(0, 3)
    .map((h) => `${h.registration} reaches only to ${isoMinute(h.ms)}`)
    .join(', ');
  const more = late.length > 3 ? ` and ${late.length - 3} more` : '';
  const days = Math.round(ctx.maxLateMs / DAY_MS);
  // Accepted only when the API was asked past the window for every late vehicle: a horizon that
  // stops where an odometer request failed is unknown, not late, and the window waits.
  const known = late.every((h) => h.askedMs >= until);
  if (known && ctx.now() - w.endMs >= ctx.maxLateMs)
    return {
      status: 'flagged',
      reason: `accepted incomplete: after the maximum lateness of ${days} days the data of ${who}${more}`,
    };
  return {
    status: 'incomplete',
    reason: `waiting for late data (up to ${days} days): the data of ${who}${more}; pulled again when it arrives`,
  };
}

/**
 * 'incomplete' while the window may still receive late data: within the look-back, or while a
 * vehicle of its scope (none given: the look-back alone) has not reported past its end (see
 * lateStatus); else 'done'.
 */
export function settledStatus(
  ctx: SettleContext,
  w: Window,
  scope?: string,
): { status: 'done' | 'incomplete' | 'flagged'; reason: string | null } {
  const settleAt = w.endMs + ctx.settleMs;
  if (ctx.now() < settleAt)
    return {
      status: 'incomplete',
      reason: `window ends within the ${Math.round(ctx.settleMs / 3_600_000)} h look-back for late data; pulled again later`,
    };
  return (scope === undefined ? null : lateStatus(ctx, w, scope)) ?? { status: 'done', reason: null };
}

/**
 * A window the API had no data for: `done` (nothing happened), unless the vehicle's data has not
 * even reached the window's start yet (a silent tracker): then it waits like any late window.
 */
export function emptyStatus(
  ctx: SettleContext,
  w: Window,
  scope: string,
  reason: string,
): { status: 'done' | 'incomplete' | 'flagged'; reason: string } {
  return lateStatus(ctx, w, scope, w.startMs) ?? { status: 'done', reason };
}

/**
 * A window that reaches into the look-back for late data, cut at the local midnight before it:
 * the settled part can be `done` now, and only the recent days stay `incomplete`. Without the cut
 * a month-long window stayed incomplete as a whole until 72 h after the month ended, and "complete
 * through" sat at the start of the month. Costs one more request per such window; the unit still
 * replaces everything inside its whole window, so the next run's cut lands cleanly.
 */
export function settledPieces(ctx: SettleContext, w: Window): Window[] {
  return cutAt(w, settledCut(ctx.now() - ctx.settleMs, ctx.zone));
}

/**
 * The ledger rows of a window of point records (trips by their start, fills, visits by their
 * enter time) fetched in one answer: one row per settled piece (see settledPieces), its records
 * counted by time; the requests are booked on the first.
 */
export function pointLedger(
  ctx: SettleContext,
  stream: LedgerStream,
  scope: string,
  w: Window,
  times: readonly number[],
  requests: number,
): LedgerEntry[] {
  return settledPieces(ctx, w).map((p, i) => ({
    stream,
    scope,
    startMs: p.startMs,
    endMs: p.endMs,
    ...settledStatus(ctx, p, scope),
    rows: times.filter((t) => t >= p.startMs && t < p.endMs).length,
    requests: i === 0 ? requests : 0,
  }));
}
