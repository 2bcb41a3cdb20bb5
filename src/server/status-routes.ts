/**
 * GET /api/status (account, zone, freshness, last run, sync availability, the scheduler's next
 * run) and POST /api/sync (one at a time: 409 while a run is going; 503 without a sync engine).
 */
import { accountOf } from './account-routes.ts';
import { Router } from 'express';
import { acknowledgeFlaggedChanges, listFlaggedChanges } from '../changes/index.ts';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import { parseReportParams } from '../reports/params.ts';
import { requireReport, reportMeta, resolveZone, runReport } from '../reports/run.ts';
import type { SyncGate } from './sync-gate.ts';
import type { Clock } from '../time.ts';
import type { ChangesAnswer, ReportRow, StatusAnswer, SyncAnswer } from './api-types.ts';

export interface StatusDeps {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  gate: SyncGate | null;
  scheduler: { nextRun(): Date | null } | null;
}

export function statusRoutes(deps: StatusDeps): Router {
  const r = Router();

  r.get('/status', async (_req, res) => {
    const con = await deps.db.connect();
    try {
      const account = accountOf(res, deps.config);
      const zone = await resolveZone(con, account, deps.config.timezone);
      const scope = { account, zone, nowMs: deps.now() };
      const meta = await reportMeta(con, scope);
      const runsDef = requireReport('runs');
      const runs = await runReport(con, runsDef, scope, parseReportParams({ limit: '1' }, runsDef, scope));
      res.set('Cache-Control', 'no-store').json({
        account,
        zone,
        now: new Date(deps.now()).toISOString(),
        complete_through: meta.complete_through,
        complete_through_day: meta.complete_through_day,
        complete_through_text: meta.complete_through_text,
        // The runs report's row: its SQL columns are the registry's (test/reports/reports.test.ts).
        last_run: (runs.rows[0] as ReportRow<'runs'> | undefined) ?? null,
        sync: {
          available: deps.gate !== null,
          running: deps.gate?.running ?? false,
          schedule: deps.config.schedule,
          next_run: deps.scheduler?.nextRun()?.toISOString() ?? null,
        },
      } satisfies StatusAnswer);
    } finally {
      con.closeSync();
    }
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
