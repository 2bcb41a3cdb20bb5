/**
 * POST /api/service/done (issue 28 item 1; docs/service.md): records a service done while `serve`
 * holds the database (the one process that may open it), as `fleetsync service done` does with the
 * file free — the command asks this route when the file is locked. Body (JSON): vehicle (id or
 * registration), date (YYYY-MM-DD, local), odometer (km), force (true: record a reading the synced
 * odometer contradicts). A bad value is 400 naming every problem, nothing recorded, `forcible` when
 * force would record it; the answer is the vehicle's line of the service_due report after it and
 * the notes `service done` prints.
 */
import express, { Router } from 'express';
import type { Config } from '../config.ts';
import { isFleetsyncError } from '../errors.ts';
import { parseReportParams } from '../reports/params.ts';
import { requireReport, resolveZone, runReport } from '../reports/run.ts';
import { recordServiceDone, type ServiceRecorded } from '../service/store.ts';
import type { Database } from '../store/db.ts';
import type { Clock } from '../time.ts';
import { accountOf } from './account-routes.ts';
import type { ServiceDoneAnswer, ServiceRefusedAnswer } from './api-types.ts';

const field = (body: Record<string, unknown>, k: string) =>
  typeof body[k] === 'string' || typeof body[k] === 'number' ? String(body[k]) : '';

/**
 * Why `serve --lake` records no service: its database is views of the lake, which the workers
 * publish from each account's own file (a publish replaces the account's partitions; several such
 * servers may run). A service kept here would be lost at the next start; the account's file is
 * where it lasts.
 */
const lakeRefusal = (account: string) =>
  `service not recorded: serve --lake shows the lake read-only, as the workers publish it from each account's own file, ` +
  `so a service recorded here would be lost. Record it where account ${account}'s data is kept: in the service plan file's ` +
  `"services" (FLEETSYNC_SERVICE_PLAN of the worker whose FLEETSYNC_ACCOUNT is ${account}: loaded after its next job), or with ` +
  `fleetsync service done and FLEETSYNC_DB=<FLEETSYNC_DATA_DIR>/accounts/${account}.duckdb while no job of it runs. ` +
  `It reaches this page with the next publish.`;

export function serviceRoutes(deps: {
  db: Database;
  config: Readonly<Config>;
  now: Clock;
  /** Lake mode: refused with lakeRefusal. */
  lake?: boolean;
}): Router {
  const r = Router();
  r.post('/service/done', express.json({ limit: '4kb' }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const account = accountOf(res, deps.config);
    if (deps.lake) {
      const refused: ServiceRefusedAnswer = {
        error: 'E_BAD_REQUEST',
        message: lakeRefusal(account),
        forcible: false,
      };
      res.status(400).json(refused);
      return;
    }
    const con = await deps.db.connect();
    try {
      const zone = await resolveZone(con, account, deps.config.timezone);
      const nowMs = deps.now();
      let recorded: ServiceRecorded;
      try {
        recorded = await recordServiceDone(
          con,
          account,
          {
            vehicle: field(body, 'vehicle'),
            date: field(body, 'date'),
            odometer: field(body, 'odometer'),
            force: body.force === true,
          },
          zone,
          nowMs,
        );
      } catch (e) {
        if (!isFleetsyncError(e, 'E_USAGE')) throw e;
        const refused: ServiceRefusedAnswer = {
          error: 'E_BAD_REQUEST',
          message: e.message,
          forcible: e.details?.forcible === true,
        };
        res.status(400).json(refused);
        return;
      }
      const id = recorded.vehicleId;
      const def = requireReport('service_due');
      const scope = { account, zone, nowMs };
      const { rows } = await runReport(
        con,
        def,
        scope,
        parseReportParams({ vehicle: String(id) }, def, scope),
      );
      const answer: ServiceDoneAnswer = {
        vehicle_id: id,
        service_due: rows[0] ?? null,
        notes: recorded.notes,
      };
      res.json(answer);
    } finally {
      con.closeSync();
    }
  });
  return r;
}
