/**
 * GET /api/status (account, zone, freshness, last run, sync availability, the scheduler's next
 * run) and POST /api/sync (one at a time: 409 while a run is going; 503 without a sync engine).
 */
import { resolve } from 'node:path';
import { accountOf } from './account-routes.ts';
import { Router } from 'express';
import { acknowledgeFlaggedChanges, listFlaggedChanges } from '../changes/index.ts';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { outcomeProblems, type JobOutcome } from '../lake/outcomes.ts';
import type { Database } from '../store/db.ts';
import { parseReportParams } from '../reports/params.ts';
import { requireReport, reportMeta, resolveZone, runReport } from '../reports/run.ts';
import { buildStatus } from '../status/report.ts';
import { outcomesFor } from '../outcome/outcomes.ts';
import {
  createConnectionPool,
  createStampedVersions,
  createVersionedMemo,
  fileStamp,
  statusVersion,
} from './report-cache.ts';
import type { SyncGate } from './sync-gate.ts';
import type { WarmUp } from './warm-up.ts';
import { formatIsoInZone, isoInZoneOrNull, type Clock } from '../time.ts';
import type { ChangesAnswer, LastRunAnswer, StatusAnswer, SyncAnswer } from './api-types.ts';

export interface StatusDeps {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  gate: SyncGate | null;
  scheduler: {
    nextRun(): Date | null;
    /** The first time the schedule was due after the server started (null: no schedule). */
    firstDue?(): Date | null;
  } | null;
  /** Lake mode: each account's last worker job and publish time (src/lake/outcomes.ts). */
  jobs?: () => JobOutcome[];
  /** The overview's calls computed ahead of the first visit (warm-up.ts): the status is one. */
  warmUp?: WarmUp;
}

/** The run row's counters as objects (the runs report gives them as JSON text for CSV). */
function objectsOf(row: Record<string, unknown>): Record<string, unknown> {
  const out = { ...row };
  for (const k of ['http_429', 'windows_by_stream', 'errors', 'skipped'])
    if (typeof out[k] === 'string') {
      try {
        out[k] = JSON.parse(out[k]) as unknown;
      } catch {
        // not JSON: left as stored
      }
    }
  return out;
}

interface StatusParts {
  meta: Awaited<ReturnType<typeof reportMeta>>;
  runs: Awaited<ReturnType<typeof runReport>>;
  report: Awaited<ReturnType<typeof buildStatus>>;
  zone: string;
}

/** The runs a status answer lists when the request names none (the dashboard asks so; the warm-up computes it). */
const DEFAULT_STATUS_RUNS = 10;

const jobsAnswer = (accounts: JobOutcome[], nowMs: number, staleHours: number) => ({
  accounts,
  problems: outcomeProblems(accounts, nowMs, staleHours),
});

export function statusRoutes(deps: StatusDeps): Router {
  const r = Router();
  const connections = createConnectionPool(deps.db);
  // While a sync runs, every committed group is a new data version: callers get the status last
  // computed (at most one computation behind) rather than each waiting for a recomputation.
  const answers = createVersionedMemo<StatusParts>(16, () => deps.gate?.running ?? false);
  // The database's version asked again only when its files changed (report-cache.ts).
  const versions = createStampedVersions(fileStamp(deps.db.path));
  const refreshing = new Set<string>();
  // The runs the database does not show (a row a full disk refused, a process that died) come
  // from the state file beside it; a change of outcome there is a new version too.
  const outcomes = outcomesFor(deps.db.path, deps.log);
  const outcomeVersion = () => {
    const doc = outcomes.read();
    return (
      Object.entries(doc.accounts)
        .map(([a, o]) => `${a}:${o.run_id}:${o.state}:${o.recorded}`)
        .join(',') + `|checkpoint:${doc.checkpoint?.last_ms ?? ''}`
    );
  };

  // Everything but the sync state is a function of the data and the clock: reused while the
  // data version is unchanged, for at most a minute (the status judges staleness and "today"
  // by the clock). A status call was ~10 statements and the costliest overview call.
  const compute = (account: string, n: number, version: string) =>
    answers.through(
      version,
      JSON.stringify([account, n, Math.floor(deps.now() / 60_000)]),
      async () => {
        // its own connection: a caller answered from the memo meanwhile releases its own
        const con = await connections.acquire();
        let computed = false;
        try {
          const zone = await resolveZone(con, account, deps.config.timezone);
          const scope = { account, zone, nowMs: deps.now() };
          const meta = await reportMeta(con, scope);
          const runsDef = requireReport('runs');
          const runs = await runReport(
            con,
            runsDef,
            scope,
            parseReportParams({ limit: '1' }, runsDef, scope),
          );
          // What `fleetsync status` prints, so that it can ask this server while it holds the file.
          const report = await buildStatus(con, {
            database: deps.db.path,
            zone,
            runs: n,
            nowMs: deps.now(),
            outcomes: outcomes.read(),
          });
          computed = true;
          return { meta, runs, report, zone };
        } finally {
          connections.release(con, computed);
        }
      },
      JSON.stringify([account, n]),
    );
  // The data version on a connection of its own, then the status of that version (kept or computed).
  const current = async (account: string, n: number) => {
    const con = await connections.acquire();
    let ok = false;
    try {
      const parts = await compute(
        account,
        n,
        `${await versions('status', () => statusVersion(con))}|${outcomeVersion()}`,
      );
      ok = true;
      return parts;
    } finally {
      connections.release(con, ok);
    }
  };
  // The dashboard's first call (the default account, 10 runs) is part of the warm-up.
  deps.warmUp?.also(() => current(deps.config.account, DEFAULT_STATUS_RUNS));

  r.get('/status', async (req, res) => {
    const n = req.query.runs === undefined ? DEFAULT_STATUS_RUNS : Number(req.query.runs);
    if (
      typeof req.query.runs !== 'undefined' &&
      (typeof req.query.runs !== 'string' || !/^\d{1,4}$/.test(req.query.runs) || n < 1 || n > 1000)
    )
      throw new FleetsyncError('E_BAD_REQUEST', 'runs: a whole number from 1 to 1000');
    const account = accountOf(res, deps.config);
    const family = JSON.stringify([account, n]);
    const send = ({ meta, runs, report, zone }: StatusParts) => {
      const { complete_through: byAccount, ...rest } = report;
      res.set('Cache-Control', 'no-store').json({
        ...rest,
        complete_through_by_account: byAccount,
        server: { pid: process.pid, database: resolve(deps.db.path) },
        account,
        zone,
        // every time of the answer in the account's zone, with its offset (as /healthz says them)
        now: formatIsoInZone(deps.now(), zone),
        complete_through: meta.complete_through,
        complete_through_day: meta.complete_through_day,
        complete_through_text: meta.complete_through_text,
        // The runs report's row (its SQL columns are the registry's, test/reports/reports.test.ts),
        // with its counters as objects.
        last_run: runs.rows[0] ? (objectsOf(runs.rows[0]) as unknown as LastRunAnswer) : null,
        sync: {
          available: deps.gate !== null,
          running: deps.gate?.running ?? false,
          schedule: deps.config.schedule,
          next_run: isoInZoneOrNull(deps.scheduler?.nextRun(), zone),
        },
        // Read on every call (the workers rewrite it), never from the memo.
        ...(deps.jobs ? { jobs: jobsAnswer(deps.jobs(), deps.now(), deps.config.staleHours) } : {}),
      } satisfies StatusAnswer);
    };
    // While a sync runs, the version moves with every committed group and the sync's own work
    // keeps the event loop and DuckDB's threads busy: the status last computed answers at once,
    // without a statement, and one recomputation at a time runs behind it (the sync state
    // itself is always live).
    const kept = answers.peek(family);
    if (kept) {
      if (!refreshing.has(family)) {
        refreshing.add(family);
        current(account, n)
          .catch((e: unknown) =>
            deps.log.warn('status: recomputing during a sync failed', { error: describeError(e) }),
          )
          .finally(() => refreshing.delete(family));
      }
      send(kept);
      return;
    }
    send(await current(account, n));
  });

  // API release notes: open flagged changes to endpoints the sync uses (the dashboard's banner).
  r.get('/changes', async (_req, res) => {
    const con = await deps.db.connect();
    try {
      res
        .set('Cache-Control', 'no-store')
        .json({ flagged: await listFlaggedChanges(con) } satisfies ChangesAnswer);
    } finally {
      con.closeSync();
    }
  });

  r.post('/changes/ack', async (_req, res) => {
    const con = await deps.db.connect();
    try {
      await acknowledgeFlaggedChanges(con, deps.now());
      res.json({ flagged: await listFlaggedChanges(con) } satisfies ChangesAnswer);
    } finally {
      con.closeSync();
    }
  });

  r.post('/sync', async (_req, res) => {
    if (!deps.gate) {
      res.status(503).json({
        error: 'E_NOT_AVAILABLE',
        message: 'this server has no sync engine wired in; run `fleetsync sync` while the server is stopped',
      });
      return;
    }
    if (deps.gate.closed) {
      res
        .status(503)
        .json({ error: 'E_NOT_AVAILABLE', message: 'the server is stopping: no sync starts now' });
      return;
    }
    const run = deps.gate.tryRun('api');
    if (!run) {
      res.status(409).json({ error: 'E_BUSY', message: 'a sync is already running; try again when it ends' });
      return;
    }
    try {
      const summary = await run;
      res.json(summary satisfies SyncAnswer);
    } catch (e) {
      deps.log.error('sync failed', { trigger: 'api', error: describeError(e) });
      throw e instanceof FleetsyncError ? e : new FleetsyncError('E_HTTP', 'the sync failed', { cause: e });
    }
  });

  return r;
}
