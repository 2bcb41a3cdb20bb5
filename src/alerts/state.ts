/**
 * What alerts, /healthz and /metrics judge, read from the database: per account its last finished
 * run, "complete through" and when that last moved forward (the stale rule's clock, kept in
 * the state file since, `alert_freshness` before). Nothing here writes.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { prepareModelConnection } from '../store/models.ts';
import { queryJs } from '../store/queries.ts';
import { lastRuns } from '../status/report.ts';
import type { OutcomeDoc } from '../outcome/outcomes.ts';
import { runsOutsideDb, type LastRun } from '../outcome/runs.ts';

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

/** Failed windows and snapshots of a run, from its per-stream counts. */
export const failedIn = (r: LastRun): number =>
  Object.values(r.windowsByStream).reduce((a, w) => a + Number(w?.failed ?? 0), 0);

/**
 * Each account's last run, from the database's `runs` and the state file together: the state
 * file's run wins when the database does not hold it (its row could not be written, the process
 * died before it could end it) or the database could not be read (`db` null); "complete through"
 * has moved forward at the time the state file recorded (the alerter records it there, so the
 * age counts on while the database cannot be written).
 */
export function withOutcomes(db: AccountState[] | null, doc: OutcomeDoc, zone: string): AccountState[] {
  const out = new Map((db ?? []).map((s) => [s.account, { ...s }]));
  for (const { account, run } of runsOutsideDb(new Map([...out].map(([a, s]) => [a, s.lastRun])), doc))
    out.set(account, {
      ...(out.get(account) ?? { account, zone, completeThroughMs: null, advancedAtMs: null }),
      lastRun: run,
    });
  for (const s of out.values()) {
    const f = doc.freshness[s.account];
    if (s.completeThroughMs === null) continue;
    if (f && s.completeThroughMs <= f.through_ms) s.advancedAtMs = f.advanced_ms;
    else if (f) s.advancedAtMs = null; // moved since recorded: it moved just now (the alerter records it)
    // else: not tracked yet (the DB's `alert_freshness` of an older version, or none: the alerter records it now)
  }
  return [...out.values()].sort((a, b) => a.account.localeCompare(b.account));
}
