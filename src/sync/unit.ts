/**
 * A unit of work: one grid window of one stream for one scope (a vehicle or the fleet). `fetch`
 * talks to the API only and returns the write declaratively — the window's data ranges to
 * replace, its rows, its ledger rows — which the stream's group committer applies in one
 * transaction (with other windows', set-based), so a window is stored whole or not at all.
 */
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import type { Logger } from '../log.ts';
import type { RangeDelete } from '../store/write.ts';
import type { Clock } from '../time.ts';
import type { WindowWrite } from './commit.ts';
import type { Horizon, LedgerEntry, LedgerStream } from './ledger.ts';
import type { WindowRules } from './rules.ts';
import type { Window } from './windows.ts';

export interface VehicleRef {
  vehicle_id: number;
  registration: string;
}

export interface StreamContext {
  client: FleetClient;
  account: string;
  zone: string;
  now: Clock;
  log: Logger;
  /** Windows ending less than this long before now may still receive late data: re-pulled later. */
  settleMs: number;
  /** A window whose end is this far in the past is accepted even if its data looks stale. */
  maxLateMs: number;
  /**
   * Each vehicle's data horizon by scope (vehicle id): its latest odometer last_event_ts. A window
   * is settled only once the horizons of its scope reach its end (ledger.ts settledStatus).
   */
  horizons: Map<string, Horizon>;
  /** Odometer data this much older than the window's end (or now) means the window is incomplete. */
  odometerLagMs: number;
  /** The model layer's rules for an answer (rules.ts): which windows are flagged, with which code. */
  rules: WindowRules;
  /**
   * Records a fleet-wide paged window may hold at once (MAX_WINDOW_RECORDS): its records are held
   * until its write, so a unit whose window has more returns a split instead (SplitResult).
   */
  maxWindowRecords: number;
  signal?: AbortSignal;
}

export interface FetchResult extends WindowWrite {
  /** Ledger rows that replace every ledger row inside the unit's window (leaves after splits). */
  ledger: LedgerEntry[];
  /** Data rows the window stored (for the run summary). */
  rows: number;
}

/**
 * A unit whose window held more records than it may hold at once: nothing was written, and these
 * units (pieces of its window) run in its place, one after another.
 */
export interface SplitResult {
  split: Unit[];
}

export interface Unit {
  /** The declared stream's name (streams/<name>.ts). */
  stream: string;
  ledgerStream: LedgerStream;
  scope: string;
  window: Window;
  bucket: BucketName;
  /** Requests the planner expects this unit to need (pages and splits are estimates). */
  estRequests: number;
  label: string;
  fetch(ctx: StreamContext, meter: RequestMeter): Promise<FetchResult | SplitResult>;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** A per-vehicle window table's rows inside `w` (every leaf a split left), replaced by a re-pull. */
export const vehicleWindowRange = (table: string, vehicleId: number, w: Window): RangeDelete => ({
  table,
  eq: { vehicle_id: vehicleId },
  within: ['window_start', 'window_end'],
  startMs: w.startMs,
  endMs: w.endMs,
});
