/**
 * GET /healthz and GET /metrics. /healthz answers 200 while the process, the database and the
 * scheduler are fine, and 503 with the reasons while an account's last run failed or was partial
 * (the same rule that opens a "run" alert) or its data is stale, "degraded" (503 too) while only the
 * last checkpoint failed (the data wait in the .wal), and in lake mode while an
 * account's last worker job failed, it never published, or its last publish is stale.
 * /metrics: Prometheus text.
 * Token rules as for /api: a server bound beyond loopback needs the bearer token for both; its
 * /healthz stays open to a client on the loopback interface (a container's own health check).
 */
import { Router, type RequestHandler } from 'express';
import {
  isStale,
  readAccountStates,
  unchangedForMs,
  withOutcomes,
  type AccountState,
} from '../alerts/state.ts';
import { outcomesFor } from '../outcome/outcomes.ts';
import { isLoopbackHost } from '../config.ts';
import { describeError } from '../errors.ts';
import { outcomeProblems } from '../lake/outcomes.ts';
import { endpointsRefused, type EndpointRefusal } from '../status/report.ts';
import { formatIsoInZone, isoInZoneOrNull } from '../time.ts';
import { requireBearer } from './auth.ts';
import type { Metrics } from './metrics.ts';
import type { StatusDeps } from './status-routes.ts';

/** What the status routes get, and the metrics. */
export interface HealthDeps extends StatusDeps {
  metrics: Metrics;
}

const isLoopbackPeer = (addr: string | undefined) =>
  !!addr && (isLoopbackHost(addr) || /^::ffff:127\./.test(addr) || addr === '::1');

export interface Health {
  ok: boolean;
  /** Not ok only because the last checkpoint failed: everything synced is kept, in the .wal. */
  degraded: boolean;
  reasons: string[];
  checks: Record<string, unknown>;
}

export async function assessHealth(deps: Omit<HealthDeps, 'metrics'>): Promise<Health> {
  const reasons: string[] = [];
  const checks: Record<string, unknown> = {};
  const nowMs = deps.now();
  if (deps.config.schedule) {
    const next = deps.scheduler?.nextRun() ?? null;
    // next_run is written below, in the account's zone once it is known (as /api/status says it)
    checks.scheduler = { schedule: deps.config.schedule, next_run: next };
    if (!deps.gate)
      reasons.push('FLEETSYNC_SCHEDULE is set but this server has no sync (no API credentials)');
    else if (!next) reasons.push('the scheduler is not running (no next run)');
  }
  // The state file beside the database: a run whose row could not be written, or whose process
  // died, is the account's last run whatever the database says.
  const doc = outcomesFor(deps.db.path, deps.log).read();
  let fromDb: AccountState[] | null = null;
  let refused: EndpointRefusal[] = [];
  let con;
  try {
    con = await deps.db.connect();
    await con.run('SELECT 1');
    checks.database = 'ok';
    fromDb = await readAccountStates(con, deps.log);
    refused = await endpointsRefused(con, 'UTC');
  } catch (e) {
    checks.database = 'error';
    reasons.push(`database: ${describeError(e)}`);
  } finally {
    con?.closeSync();
  }
  {
    const accounts = withOutcomes(fromDb, doc, deps.config.timezone);
    // every time in the answer is ISO with the account zone's offset, as /api/status writes them
    const zone =
      accounts.find((a) => a.account === deps.config.account)?.zone ??
      accounts[0]?.zone ??
      deps.config.timezone;
    const sched = checks.scheduler as { next_run: Date | null | string } | undefined;
    if (sched) sched.next_run = isoInZoneOrNull(sched.next_run as Date | null, zone);
    const first = deps.scheduler?.firstDue?.() ?? null;
    if (
      deps.config.schedule &&
      first &&
      Date.now() >= first.getTime() && // the scheduler's own clock
      !deps.gate?.running &&
      !accounts.some((s) => s.lastRun)
    )
      reasons.push(
        `no run yet: the schedule "${deps.config.schedule}" was due at ${formatIsoInZone(first.getTime(), zone)}`,
      );
    checks.accounts = accounts.map((s) => {
      const u = unchangedForMs(s, nowMs);
      const r = s.lastRun;
      const why = r?.recorded === false ? r.errors[0]?.reason : undefined;
      if (r && (r.outcome === 'failed' || r.outcome === 'partial'))
        reasons.push(
          `account ${s.account}: the last run ${r.run_id} ${r.outcome === 'failed' ? 'failed' : 'was partial'}` +
            (why ? ` (not in the database): ${why}` : ''),
        );
      if (isStale(s, nowMs, deps.config.staleHours))
        reasons.push(
          `account ${s.account}: data is stale: no new complete day for ${Math.floor(u! / 3_600_000)} h (FLEETSYNC_STALE_HOURS=${deps.config.staleHours})`,
        );
      return {
        account: s.account,
        last_run: r
          ? {
              run_id: r.run_id,
              outcome: r.outcome,
              ended_at: formatIsoInZone(r.endedMs, s.zone),
              recorded: r.recorded !== false,
              ...(r.recorded === false ? { error: r.errors[0]?.reason ?? null } : {}),
            }
          : null,
        complete_through: s.completeThroughMs === null ? null : formatIsoInZone(s.completeThroughMs, s.zone),
        unchanged_h: u === null ? null : Math.round(u / 360_000) / 10,
        // Facts about the account, not failures: they do not make /healthz fail.
        endpoints_refused: refused
          .filter((e) => e.account === s.account)
          .map((e) => ({
            endpoint: e.endpoint,
            state: e.state,
            text: e.text,
            since: e.since,
            streams: e.streams,
          })),
      };
    });
  }
  // Lake mode: a failed job publishes nothing, so the lake's own tables cannot show it.
  if (deps.jobs) {
    const jobs = deps.jobs();
    checks.jobs = jobs;
    reasons.push(...outcomeProblems(jobs, nowMs, deps.config.staleHours));
  }
  // The database file lacks what its write-ahead log holds (src/store/checkpoint.ts): degraded.
  const unwritten = doc.checkpoint ?? null;
  checks.checkpoint = unwritten
    ? {
        ok: false,
        problem: unwritten.problem,
        since: formatIsoInZone(unwritten.first_ms, deps.config.timezone),
      }
    : { ok: true };
  const degraded = unwritten !== null && reasons.length === 0;
  if (unwritten) reasons.push(`database file: the last checkpoint failed: ${unwritten.problem}`);
  return { ok: reasons.length === 0, degraded, reasons, checks };
}

export function healthRoutes(deps: HealthDeps): Router {
  const r = Router();
  const guarded = !isLoopbackHost(deps.config.host) && deps.config.token;
  const bearer: RequestHandler = guarded ? requireBearer(deps.config.token!) : (_q, _s, next) => next();

  r.get(
    '/healthz',
    (req, res, next) => (isLoopbackPeer(req.socket.remoteAddress) ? next() : bearer(req, res, next)),
    async (_req, res) => {
      const h = await assessHealth(deps);
      res
        .status(h.ok ? 200 : 503)
        .set('Cache-Control', 'no-store')
        .json({
          status: h.ok ? 'ok' : h.degraded ? 'degraded' : 'fail',
          reasons: h.reasons,
          checks: h.checks,
        });
    },
  );

  r.get('/metrics', bearer, async (_req, res) => {
    const con = await deps.db.connect();
    try {
      const text = await deps.metrics.render(con, deps.now(), deps.gate?.running ?? false);
      res.set('Cache-Control', 'no-store').type(deps.metrics.registry.contentType).send(text);
    } finally {
      con.closeSync();
    }
  });
  return r;
}
