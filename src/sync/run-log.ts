/**
 * The run log: the run's tally in memory (the RunSummary a caller gets) and its row in `runs`
 * (queries/sync/run_*.sql) — written when the run starts (a `running` row a killed process left
 * is marked `interrupted` first), completed when it finishes, and given its notes by the
 * release-notes check beside the sync (src/changes/after-sync.ts).
 */
import { DEFAULT_WORKING_HOURS, type WorkingHours } from '../working-hours.ts';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FleetClient, RequestMeter } from '../api/client.ts';
import { refusalOf } from '../api/access.ts';
import { describeError, type FleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { execute, queryJs } from '../store/queries.ts';
import { inTransaction } from '../store/db.ts';
import { keepingAfterHoursFacts } from '../store/facts.ts';
import { localDate, type Clock } from '../time.ts';
import type { RunSummary, SkippedStream, StreamCounts, SyncRequest } from './types.ts';
import type { Window } from './windows.ts';

export interface RunLog {
  readonly runId: string;
  readonly summary: RunSummary;
  /**
   * A stream is left out: an endpoint it needs refused (`e`, api/access.ts). Not a failure; true
   * the first time for the stream.
   */
  skip(stream: string, e: FleetsyncError): boolean;
  /** Has the run left `stream` out? */
  skips(stream: string): boolean;
  /** A window or snapshot failed: the run is partial and goes on; the first 50 failures are kept. */
  fail(stream: string, scope: string, window: string, e: unknown): void;
  /** Counts a window status (or none) and rows and requests under a stream. */
  count(stream: string, status: string | null, rows: number, requests: number): void;
  /** Adds a unit's or snapshot's requests to the run's total. */
  meter(m: RequestMeter): void;
  /** The run as a whole ends `outcome` for `reason` (a stop, an interruption, an error); the first reason is kept. */
  end(outcome: RunSummary['outcome'], reason: string): void;
}

export const newMeter = (): RequestMeter => ({ requests: 0, retries: 0, http429: 0 });

export function newRunLog(
  account: string,
  zone: string,
  log: Logger,
  now: Clock,
  client: FleetClient,
): RunLog & {
  finish(con: DuckDBConnection): Promise<void>;
} {
  const startedMs = now();
  const runId = `${new Date(startedMs).toISOString().replace(/[-:]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;
  const skipped: SkippedStream[] = [];
  const summary: RunSummary = {
    run_id: runId,
    account,
    zone,
    outcome: 'ok',
    started_ms: startedMs,
    ended_ms: 0,
    requests: 0,
    retries: 0,
    http429ByBucket: {},
    streams: {},
    errors: [],
    skipped,
  };
  const total = newMeter();
  const before = client.stats();
  return {
    runId,
    summary,
    skip(stream, e) {
      if (skipped.some((s) => s.stream === stream)) return false;
      const r = refusalOf(e);
      skipped.push({ stream, endpoint: r.endpoint, state: r.state, reason: r.message });
      log.warn('stream skipped', { stream, endpoint: r.endpoint, state: r.state });
      return true;
    },
    skips: (stream) => skipped.some((s) => s.stream === stream),
    fail(stream, scope, window, e) {
      summary.outcome = 'partial';
      if (summary.errors.length < 50)
        summary.errors.push({ stream, scope, window, reason: describeError(e) });
      log.warn('window failed', { stream, scope, window, error: describeError(e) });
    },
    count(stream, status, rows, requests) {
      const c: StreamCounts = (summary.streams[stream] ??= { windows: {}, rows: 0, requests: 0 });
      if (status)
        c.windows[status as keyof typeof c.windows] = (c.windows[status as keyof typeof c.windows] ?? 0) + 1;
      c.rows += rows;
      c.requests += requests;
    },
    meter(m) {
      total.requests += m.requests;
      total.retries += m.retries;
      total.http429 += m.http429;
    },
    end(outcome, reason) {
      summary.outcome = outcome;
      summary.reason ??= reason;
      // First in the list: the runs row keeps the first 20 errors, and this one says why.
      summary.errors.unshift({ stream: '*', scope: '*', window: '*', reason });
    },
    /** Completes the summary (end time, requests, this run's 429s) and the run row. */
    async finish(con) {
      summary.ended_ms = now();
      summary.requests = total.requests;
      summary.retries = total.retries;
      // This run's counts only (a client may serve several runs).
      const after = client.stats();
      summary.http429ByBucket = sinceStart(after.http429ByBucket, before.http429ByBucket);
      summary.requestsByBucket = sinceStart(after.requestsByBucket, before.requestsByBucket);
      summary.retriesByBucket = sinceStart(after.retriesByBucket, before.retriesByBucket);
      const by = (f: (c: StreamCounts) => unknown) =>
        JSON.stringify(Object.fromEntries(Object.entries(summary.streams).map(([k, v]) => [k, f(v)])));
      await execute(con, 'sync/run_finish', [
        runId,
        new Date(summary.ended_ms).toISOString(),
        summary.outcome,
        summary.requests,
        summary.retries,
        JSON.stringify(summary.http429ByBucket),
        by((c) => c.rows),
        by((c) => c.windows),
        JSON.stringify(summary.errors.slice(0, 20)),
        JSON.stringify(summary.requestsByBucket),
        JSON.stringify(summary.retriesByBucket),
      ]);
      if (skipped.length) await execute(con, 'sync/run_skipped', [runId, JSON.stringify(skipped)]);
      log.info('sync finished', {
        run: runId,
        outcome: summary.outcome,
        requests: summary.requests,
        retries: summary.retries,
        ms: summary.ended_ms - summary.started_ms,
      });
    },
  };
}

/** Writes the run row (after marking a run a killed process left `interrupted`) and the account's API and zone. */
export async function startRunLog(
  con: DuckDBConnection,
  run: RunLog,
  who: { account: string; baseUrl: string; timezone: string; workingHours?: WorkingHours; log: Logger },
  trigger: SyncRequest['trigger'],
  range: Window,
  streams: ReadonlySet<string>,
): Promise<void> {
  const from = localDate(range.startMs, who.timezone);
  const to = localDate(range.endMs - 1, who.timezone);
  await execute(con, 'sync/run_interrupt_stale', [who.account]);
  await execute(con, 'sync/run_start', [
    run.runId,
    who.account,
    new Date(run.summary.started_ms).toISOString(),
    'running',
    trigger,
    from,
    to,
    [...streams].join(','),
  ]);
  await execute(con, 'sync/account_upsert', [who.account, who.baseUrl, who.timezone]);
  const wh = who.workingHours ?? DEFAULT_WORKING_HOURS;
  const hours = [who.account, wh.spec, wh.weekdays.join(','), wh.startMin, wh.endMin];
  // Hours already recorded as they are (every run but the first, or a change): one read, not a
  // transaction of five statements (their macro, the hours in effect before and after, the upsert).
  const [same] = await queryJs(con, 'sync/working_hours_same', hours);
  if (same?.same !== true)
    await inTransaction(con, () =>
      keepingAfterHoursFacts(con, who.account, who.timezone, () =>
        execute(con, 'sync/working_hours_upsert', hours),
      ),
    );
  who.log.info('sync started', { run: run.runId, from, to, streams: [...streams].join(',') });
}

/** The run's notes line for the release-notes check (null when it did not run). */
export function apiChangesNote(s: RunSummary): string | null {
  const c = s.apiChanges;
  if (!c) return null;
  if (c.status === 'error') return 'api changes: release notes could not be read';
  const flagged = c.flagged.length
    ? `; ${c.flagged.length} change(s) to endpoints the sync uses: ${c.flagged.map((f) => `${f.version} ${f.kind} ${f.endpoints.join(' ')}`).join('; ')}`
    : '';
  return `api changes: ${c.status}${c.newReleases ? `, ${c.newReleases} new release(s)` : ''}${flagged}`;
}

/** Stores the run's notes (written beside the sync, after the run row is complete). */
export async function recordRunNotes(con: DuckDBConnection, s: RunSummary): Promise<void> {
  const notes = apiChangesNote(s);
  if (notes !== null) await execute(con, 'sync/run_notes', [s.run_id, notes]);
}

/** Per-bucket counts added since `before` (buckets with none left out). */
function sinceStart(now: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(now)
      .map(([b, n]) => [b, n - (before[b] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}
