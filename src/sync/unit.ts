/**
 * A unit of work: one grid window of one stream for one scope (a vehicle or the fleet). `fetch`
 * talks to the API only; `commit` writes the result — the window's data rows replaced and its
 * ledger rows replaced — in one transaction, so a window is stored whole or not at all.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import type { Logger } from '../log.ts';
import type { LedgerEntry, LedgerStream } from './ledger.ts';
import type { StreamName } from './types.ts';
import type { Window } from './windows.ts';

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

export interface FetchResult {
  /** Ledger rows that replace every ledger row inside the unit's window (leaves after splits). */
  ledger: LedgerEntry[];
  /** Replaces the window's data rows; runs inside the unit's transaction. Returns rows written. */
  write(con: DuckDBConnection): Promise<number>;
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
