/**
 * What alerts, /healthz and /metrics judge, read from the database: per account its last finished
 * run, "complete through" and when that last moved forward (the stale rule's clock, kept in
 * `alert_freshness`). Nothing here writes except `recordFreshness`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { prepareModelConnection } from '../store/models.ts';
import { execute, queryJs } from '../store/queries.ts';
import { lastRuns } from '../status/report.ts';

export interface LastRun {
  run_id: string;
  trigger: string;
  outcome: 'ok' | 'partial' | 'failed' | 'interrupted';
  startedMs: number;
  endedMs: number;
  durationMs: number;
  windowsByStream: Record<string, Record<string, number>>;
  errors: { stream?: string; scope?: string; window?: string; reason?: string }[];
}

export interface AccountState {
  account: string;
  zone: string;
  /** The instant up to which every stream is synced (null before the first complete window). */
  completeThroughMs: number | null;
  /** When "complete through" last moved forward (null: not tracked yet). */
  advancedAtMs: number | null;
  lastRun: LastRun | null;
}

const ms = (v: unknown): number | null => (v instanceof Date ? v.getTime() : null);
const json = <T>(v: unknown, fallback: T): T => {
  try {
    return typeof v === 'string' ? (JSON.parse(v) as T) : fallback;
  } catch {
    return fallback;
  }
};

export async function readAccountStates(con: DuckDBConnection, log?: Logger): Promise<AccountState[]> {
  await prepareModelConnection(con);
  const accounts = await queryJs(con, 'alerts/accounts');
  let seen: Record<string, unknown>[] = [];
  try {
    seen = await queryJs(con, 'alerts/freshness');
  } catch (e) {
    // A read-only lake published before alerts existed has no such table: nothing tracked.
    log?.debug('no freshness state', { error: describeError(e) });
  }
  const runs = new Map((await lastRuns(con)).map((r) => [String(r.account), r]));
  return accounts.map((a) => {
    const account = String(a.account);
    const f = seen.find((s) => s.account === account);
    const through = ms(a.complete_through);
    const seenThrough = ms(f?.complete_through);
    const r = runs.get(account);
    return {
      account,
      zone: String(a.timezone),
      completeThroughMs: through,
      // Moved since it was last recorded: it moved just now (the next check records it).
      advancedAtMs:
        through !== null && seenThrough !== null && through > seenThrough ? null : ms(f?.advanced_at),
      lastRun: r
        ? {
            run_id: String(r.run_id),
            trigger: String(r.trigger),
            outcome: String(r.outcome) as LastRun['outcome'],
            startedMs: ms(r.started_at) ?? 0,
            endedMs: ms(r.ended_at) ?? 0,
            durationMs: Number(r.duration_ms ?? 0),
            windowsByStream: json(r.windows_by_stream, {}),
            errors: json(r.errors, []),
          }
        : null,
    };
  });
}

/** How long "complete through" has not moved (null: unknown — never complete, or not tracked yet). */
export function unchangedForMs(s: AccountState, nowMs: number): number | null {
  if (s.completeThroughMs === null || s.advancedAtMs === null) return null;
  return Math.max(0, nowMs - s.advancedAtMs);
}

export function isStale(s: AccountState, nowMs: number, staleHours: number): boolean {
  const u = unchangedForMs(s, nowMs);
  return u !== null && u > staleHours * 3_600_000;
}

/** Records "complete through" when it is new or moved forward; returns the states as recorded. */
export async function recordFreshness(
  con: DuckDBConnection,
  states: AccountState[],
  nowMs: number,
): Promise<AccountState[]> {
  const out: AccountState[] = [];
  for (const s of states) {
    if (s.completeThroughMs !== null && s.advancedAtMs === null) {
      await execute(con, 'alerts/freshness_upsert', [
        s.account,
        new Date(s.completeThroughMs).toISOString(),
        new Date(nowMs).toISOString(),
      ]);
      out.push({ ...s, advancedAtMs: nowMs });
    } else out.push(s);
  }
  return out;
}

/** Failed windows and snapshots of a run, from its per-stream counts. */
export const failedIn = (r: LastRun): number =>
  Object.values(r.windowsByStream).reduce((a, w) => a + Number(w?.failed ?? 0), 0);
