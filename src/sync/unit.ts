/**
 * A unit of work: one grid window of one stream for one scope (a vehicle or the fleet). `fetch`
 * talks to the API only and returns the write declaratively — the window's data ranges to
 * replace, its rows, its ledger rows — which the stream's group committer applies in one
 * transaction (with other windows', set-based), so a window is stored whole or not at all.
 */
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import type { Logger } from '../log.ts';
import type { RangeDelete } from '../store/write.ts';
import type { WindowWrite } from './commit.ts';
import type { LedgerEntry, LedgerStream } from './ledger.ts';
import type { StreamName } from './types.ts';
import { cutAt, settledCut, type Window } from './windows.ts';

export interface VehicleRef {
  vehicle_id: number;
  registration: string;
}

export interface StreamContext {
  client: FleetClient;
  account: string;
  zone: string;
  now: () => number;
  log: Logger;
  /** Windows ending less than this long before now may still receive late data: re-pulled later. */
  settleMs: number;
  /** A window whose end is this far in the past is accepted even if its data looks stale. */
  maxLateMs: number;
  /** Odometer data this much older than the window's end (or now) means the window is incomplete. */
  odometerLagMs: number;
  signal?: AbortSignal;
}

export interface FetchResult extends WindowWrite {
  /** Ledger rows that replace every ledger row inside the unit's window (leaves after splits). */
  ledger: LedgerEntry[];
  /** Data rows the window stored (for the run summary). */
  rows: number;
}

export interface Unit {
  stream: StreamName;
  ledgerStream: LedgerStream;
  scope: string;
  window: Window;
  bucket: BucketName;
  /** Requests the planner expects this unit to need (pages and splits are estimates). */
  estRequests: number;
  label: string;
  fetch(ctx: StreamContext, meter: RequestMeter): Promise<FetchResult>;
}

/** 'incomplete' while the window may still receive late data, else 'done'. */
export function settledStatus(
  ctx: StreamContext,
  w: Window,
): { status: 'done' | 'incomplete'; reason: string | null } {
  const settleAt = w.endMs + ctx.settleMs;
  if (ctx.now() < settleAt)
    return {
      status: 'incomplete',
      reason: `window ends within the ${Math.round(ctx.settleMs / 3_600_000)} h look-back for late data; pulled again later`,
    };
  return { status: 'done', reason: null };
}

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A window that reaches into the look-back for late data, cut at the local midnight before it:
 * the settled part can be `done` now, and only the recent days stay `incomplete`. Without the cut
 * a month-long window stayed incomplete as a whole until 72 h after the month ended, and "complete
 * through" sat at the start of the month. Costs one more request per such window; the unit still
 * replaces everything inside its whole window, so the next run's cut lands cleanly.
 */
export function settledPieces(ctx: StreamContext, w: Window): Window[] {
  return cutAt(w, settledCut(ctx.now() - ctx.settleMs, ctx.zone));
}

/**
 * The ledger rows of a window of point records (trips by their start, fills, visits by their
 * enter time) fetched in one answer: one row per settled piece (see settledPieces), its records
 * counted by time; the requests are booked on the first.
 */
export function pointLedger(
  ctx: StreamContext,
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
    ...settledStatus(ctx, p),
    rows: times.filter((t) => t >= p.startMs && t < p.endMs).length,
    requests: i === 0 ? requests : 0,
  }));
}

/** A per-vehicle window table's rows inside `w` (every leaf a split left), replaced by a re-pull. */
export const vehicleWindowRange = (table: string, vehicleId: number, w: Window): RangeDelete => ({
  table,
  eq: { vehicle_id: vehicleId },
  within: ['window_start', 'window_end'],
  startMs: w.startMs,
  endMs: w.endMs,
});
