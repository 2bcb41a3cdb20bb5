/**
 * GET /metrics in the Prometheus text format (prom-client, one registry per app). The run
 * counters come from the `runs` table at scrape time, so they match it and survive a restart;
 * windows by status from the ledger; freshness and the last run per account; report latency is
 * measured in this process (a histogram per report and format).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { unchangedForMs, isStale, readAccountStates, withOutcomes } from '../alerts/state.ts';
import { DEFAULT_TIMEZONE } from '../defaults.ts';
import type { RunOutcomes } from '../outcome/outcomes.ts';
import type { Logger } from '../log.ts';
import { REPORT_NAMES } from '../reports/registry.ts';
import { queryJs } from '../store/queries.ts';

export interface Metrics {
  readonly registry: Registry;
  /** Middleware for /api/reports: observes each answer's duration under its report and format. */
  reportTimer: RequestHandler;
  /** The text exposition, with the database-derived values read now. */
  render(con: DuckDBConnection, nowMs: number, running: boolean): Promise<string>;
}

const KNOWN_REPORTS = new Set<string>(REPORT_NAMES);

export function createMetrics(o: {
  staleHours: number;
  log: Logger;
  /** The run outcomes and alerts' memory beside the database (src/outcome/outcomes.ts). */
  outcomes?: RunOutcomes;
  zone?: string;
}): Metrics {
  const registry = new Registry();
  const reg = { registers: [registry] };
  const runs = new Counter({
    name: 'fleetsync_runs_total',
    help: 'Finished sync runs by outcome (from the runs table).',
    labelNames: ['account', 'outcome'],
    ...reg,
  });
  const requests = new Counter({
    name: 'fleetsync_api_requests_total',
    help: 'Fleet API requests sent by sync runs.',
    labelNames: ['account'],
    ...reg,
  });
  const retries = new Counter({
    name: 'fleetsync_api_retries_total',
    help: 'Fleet API requests sent again after a 429, 5xx or network error.',
    labelNames: ['account'],
    ...reg,
  });
  const bucketRequests = new Counter({
    name: 'fleetsync_api_bucket_requests_total',
    help: 'Fleet API requests sent by sync runs, by rate bucket (retries included).',
    labelNames: ['account', 'bucket'],
    ...reg,
  });
  const bucketRetries = new Counter({
    name: 'fleetsync_api_bucket_retries_total',
    help: 'Fleet API requests sent again, by rate bucket.',
    labelNames: ['account', 'bucket'],
    ...reg,
  });
  const http429 = new Counter({
    name: 'fleetsync_api_http_429_total',
    help: '429 answers by rate bucket.',
    labelNames: ['account', 'bucket'],
    ...reg,
  });
  const windows = new Gauge({
    name: 'fleetsync_windows',
    help: 'Ledger windows by stream and status (done, incomplete, flagged, failed).',
    labelNames: ['account', 'stream', 'status'],
    ...reg,
  });
  const freshness = new Gauge({
    name: 'fleetsync_data_freshness_seconds',
    help: 'Seconds since "complete through" (absent before the first complete window).',
    labelNames: ['account'],
    ...reg,
  });
  const unchanged = new Gauge({
    name: 'fleetsync_data_unchanged_seconds',
    help: 'Seconds since "complete through" last moved forward (the stale rule).',
    labelNames: ['account'],
    ...reg,
  });
  const stale = new Gauge({
    name: 'fleetsync_data_stale',
    help: '1 while no new complete day arrived for FLEETSYNC_STALE_HOURS.',
    labelNames: ['account'],
    ...reg,
  });
  const lastDuration = new Gauge({
    name: 'fleetsync_last_run_duration_seconds',
    help: 'Duration of the last finished run.',
    labelNames: ['account'],
    ...reg,
  });
  const lastEnded = new Gauge({
    name: 'fleetsync_last_run_end_timestamp_seconds',
    help: 'When the last finished run ended (Unix time).',
    labelNames: ['account'],
    ...reg,
  });
  const lastOutcome = new Gauge({
    name: 'fleetsync_last_run_outcome',
    help: '1 for the outcome of the last finished run.',
    labelNames: ['account', 'outcome'],
    ...reg,
  });
  const unrecorded = new Gauge({
    name: 'fleetsync_last_run_unrecorded',
    help: '1 when the last run is known only from the state file: its row could not be written, or its process died.',
    labelNames: ['account'],
    ...reg,
  });
  const running = new Gauge({ name: 'fleetsync_sync_running', help: '1 while a sync runs.', ...reg });
  const incidents = new Gauge({
    name: 'fleetsync_alert_incidents_open',
    help: 'Open alert incidents (run, stale, api_change).',
    labelNames: ['account', 'incident'],
    ...reg,
  });
  const checkpointFailed = new Gauge({
    name: 'fleetsync_checkpoint_failed',
    help: '1 while the last checkpoint of the database file failed: synced data wait in its .wal (do not delete it; free space). Absent without a state file (a lake).',
    ...reg,
  });
  const reportSeconds = new Histogram({
    name: 'fleetsync_report_duration_seconds',
    help: 'Time to answer a report request, by report and format.',
    labelNames: ['report', 'format'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ...reg,
  });

  const reportTimer: RequestHandler = (req, res, next) => {
    const m = /^\/([a-z_]+)(?:\.(csv|parquet|arrow))?$/.exec(req.path);
    if (req.method !== 'GET' || !m || !KNOWN_REPORTS.has(m[1]!)) return next();
    const end = reportSeconds.startTimer({ report: m[1]!, format: m[2] ?? 'json' });
    res.once('finish', () => end());
    next();
  };

  const n = (v: unknown) => Number(v ?? 0);
  let queue: Promise<unknown> = Promise.resolve();

  async function refresh(con: DuckDBConnection, nowMs: number, isRunning: boolean): Promise<void> {
    for (const m of [runs, requests, retries, bucketRequests, bucketRetries, http429]) m.reset();
    for (const m of [windows, freshness, unchanged, stale]) m.reset();
    for (const m of [lastDuration, lastEnded, lastOutcome, incidents, unrecorded, checkpointFailed])
      m.reset();
    for (const r of await queryJs(con, 'alerts/run_totals')) {
      const account = String(r.account);
      runs.inc({ account, outcome: String(r.outcome) }, n(r.runs));
      requests.inc({ account }, n(r.requests));
      retries.inc({ account }, n(r.retries));
    }
    const byBucket = { requests: bucketRequests, retries: bucketRetries, http_429: http429 } as const;
    for (const r of await queryJs(con, 'alerts/bucket_totals'))
      byBucket[String(r.what) as keyof typeof byBucket].inc(
        { account: String(r.account), bucket: String(r.bucket) },
        n(r.n),
      );
    for (const r of await queryJs(con, 'alerts/window_totals'))
      windows.set({ account: String(r.account), stream: String(r.stream), status: String(r.status) }, n(r.n));
    const doc = o.outcomes?.read();
    const states = await readAccountStates(con, o.log);
    for (const s of doc ? withOutcomes(states, doc, o.zone ?? DEFAULT_TIMEZONE) : states) {
      const account = s.account;
      if (s.completeThroughMs !== null) freshness.set({ account }, (nowMs - s.completeThroughMs) / 1000);
      const u = unchangedForMs(s, nowMs);
      if (u !== null) {
        unchanged.set({ account }, u / 1000);
        stale.set({ account }, isStale(s, nowMs, o.staleHours) ? 1 : 0);
      }
      if (s.lastRun) {
        lastDuration.set({ account }, s.lastRun.durationMs / 1000);
        lastEnded.set({ account }, s.lastRun.endedMs / 1000);
        lastOutcome.set({ account, outcome: s.lastRun.outcome }, 1);
        unrecorded.set({ account }, s.lastRun.recorded === false ? 1 : 0);
      }
    }
    // The incidents open, from the alerts' memory (the state file; a lake has none).
    for (const r of Object.values(doc?.alerts?.open ?? {}))
      incidents.inc({ account: r.account, incident: r.incident.split(':')[0]! }, 1);
    if (o.outcomes) checkpointFailed.set(doc?.checkpoint ? 1 : 0);
    running.set(isRunning ? 1 : 0);
  }

  return {
    registry,
    reportTimer,
    render(con, nowMs, isRunning) {
      // One scrape at a time: refresh resets and refills the same metric objects.
      const p = queue.then(async () => {
        await refresh(con, nowMs, isRunning);
        return registry.metrics();
      });
      queue = p.catch(() => undefined);
      return p;
    },
  };
}
