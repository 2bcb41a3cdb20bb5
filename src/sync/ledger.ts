/**
 * The window ledger: one row per unit of work (queries/schema/002_ledger.sql). A grid window is
 * covered when ledger windows of status done or flagged tile it completely; incomplete, failed
 * or missing parts make it a gap to pull. Re-pulling a grid window replaces every ledger row
 * inside it in the same transaction as its data.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { WindowStatus } from './types.ts';
import type { Window } from './windows.ts';
import { queryJs } from '../store/queries.ts';
import { appendRows, type RangeDelete, type Row } from '../store/write.ts';

export type LedgerStream =
  'trips' | 'odometer' | 'fuel_consumed' | 'fuel_level' | 'fuel_fills' | 'visits' | 'bookings';

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
}

export interface LedgerRowRead {
  scope: string;
  startMs: number;
  endMs: number;
  status: WindowStatus;
  fetchedMs: number;
}

/** Ledger rows of a stream for an account overlapping [fromMs, toMs), grouped by scope. */
export async function readLedger(
  con: DuckDBConnection,
  account: string,
  stream: LedgerStream,
  range: Window,
): Promise<Map<string, LedgerRowRead[]>> {
  const rows = await queryJs(con, 'sync/ledger_range', [
    account,
    stream,
    new Date(range.startMs).toISOString(),
    new Date(range.endMs).toISOString(),
  ]);
  const out = new Map<string, LedgerRowRead[]>();
  for (const r of rows) {
    const scope = String(r.scope);
    const list = out.get(scope) ?? [];
    list.push({
      scope,
      startMs: (r.window_start as Date).getTime(),
      endMs: (r.window_end as Date).getTime(),
      status: String(r.status) as WindowStatus,
      fetchedMs: (r.fetched_at as Date).getTime(),
    });
    out.set(scope, list);
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
  await con.run(
    'DELETE FROM ledger WHERE account = $1 AND stream = $2 AND scope = $3 AND window_start >= $4 AND window_end <= $5',
    [account, stream, scope, new Date(w.startMs).toISOString(), new Date(w.endMs).toISOString()],
  );
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

export async function insertLedger(
  con: DuckDBConnection,
  account: string,
  runId: string,
  fetchedMs: number,
  entries: readonly LedgerEntry[],
): Promise<void> {
  await appendRows(con, 'ledger', ledgerRows(account, runId, fetchedMs, entries));
}
