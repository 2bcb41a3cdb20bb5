/**
 * A unit of work: one grid window of one stream for one scope (a vehicle or the fleet). `fetch`
 * talks to the API only and returns the write declaratively — the window's data ranges to
 * replace, its rows, its ledger rows — which the stream's group committer applies in one
 * transaction (with other windows', set-based), so a window is stored whole or not at all.
 */
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import type { Logger } from '../log.ts';
import type { RangeDelete, Row } from '../store/write.ts';
import type { WindowWrite } from './commit.ts';
import { pointLedger, type LedgerEntry, type LedgerStream, type SettleContext } from './ledger.ts';
import type { WindowRules } from './rules.ts';
import type { Window } from './windows.ts';

export interface VehicleRef {
  vehicle_id: number;
  registration: string;
}

/** What a unit's fetch is given: the client, the log, the rules, and what the ledger's statuses read. */
export interface StreamContext extends SettleContext {
  client: FleetClient;
  log: Logger;
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
  /**
   * A vehicle id, several joined by commas (a bulk unit), or `*` (the fleet): the vehicles whose
   * data horizons its statuses read (executor.ts horizonVehicles: an early unit waits for their odometer).
   */
  scope: string;
  window: Window;
  bucket: BucketName;
  /** Requests the planner expects this unit to need (pages and splits are estimates). */
  estRequests: number;
  label: string;
  fetch(ctx: StreamContext, meter: RequestMeter): Promise<FetchResult | SplitResult>;
}

/** A per-vehicle window table's rows inside `w` (every leaf a split left), replaced by a re-pull. */
export const vehicleWindowRange = (table: string, vehicleId: number, w: Window): RangeDelete => ({
  table,
  eq: { vehicle_id: vehicleId },
  within: ['window_start', 'window_end'],
  startMs: w.startMs,
  endMs: w.endMs,
});

/**
 * What a window of point records fetched in one answer stores: its ledger (pointLedger; scope
 * the vehicle, or `*` for the fleet), the records its window holds replaced (placed by their `at`
 * time; one vehicle's when `vehicleId` is given, else the fleet's) by `rows`, merged by `key` (a record seen by two windows is kept
 * once). `times` are the records' times, for the ledger's counts.
 */
export function pointWindow(
  ctx: StreamContext,
  o: {
    stream: LedgerStream;
    window: Window;
    table: string;
    at: string;
    vehicleId?: number;
    key: readonly string[];
    rows: Row[];
    times: readonly number[];
    requests: number;
  },
): FetchResult {
  const w = o.window;
  const scope = o.vehicleId === undefined ? '*' : String(o.vehicleId);
  return {
    ledger: pointLedger(ctx, o.stream, scope, w, o.times, o.requests),
    deletes: [
      {
        table: o.table,
        eq: o.vehicleId === undefined ? {} : { vehicle_id: o.vehicleId },
        at: o.at,
        startMs: w.startMs,
        endMs: w.endMs,
      },
    ],
    inserts: [{ table: o.table, key: o.key, rows: o.rows }],
    rows: o.rows.length,
  };
}
