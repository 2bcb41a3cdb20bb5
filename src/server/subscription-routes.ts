/**
 * `GET /api/subscriptions`: the subscriptions this server sends (FLEETSYNC_SUBSCRIPTIONS, read at
 * start) and the month-end pack, each with its last send — what the Sync runs page lists.
 */
import { Router } from 'express';
import type { Config } from '../config.ts';
import { resolveZone, requireReport } from '../reports/run.ts';
import { PACK_SUBSCRIPTION, type Subscription } from '../reports/subscription-file.ts';
import type { LastSend } from '../reports/subscriptions.ts';
import type { Database } from '../store/db.ts';
import { isoInZoneOrNull } from '../time.ts';
import { accountOf } from './account-routes.ts';
import type { SubscriptionSendAnswer, SubscriptionsAnswer } from './api-types.ts';

export interface SubscriptionRouteDeps {
  db: Database;
  config: Readonly<Config>;
  subscriptions: readonly Subscription[];
}

export function subscriptionRoutes(deps: SubscriptionRouteDeps): Router {
  const r = Router();
  r.get('/subscriptions', async (_req, res) => {
    const account = accountOf(res, deps.config);
    const con = await deps.db.connect();
    try {
      const zone = await resolveZone(con, account, deps.config.timezone);
      // Imported when asked: the sending code loads the exports' libraries (exceljs, apache-arrow),
      // ~40 MB of RSS a server that never sends or writes such a file does not need.
      const { lastSends } = await import('../reports/subscriptions.ts');
      const last = await lastSends(con);
      const sendOf = (name: string): SubscriptionSendAnswer | null => {
        const l: LastSend | undefined = last.get(name);
        return l
          ? {
              sent_at: isoInZoneOrNull(new Date(l.sent_ms), zone)!,
              period_from: l.period_from,
              period_to: l.period_to,
              partial: l.partial,
              reason: l.reason,
              trigger: l.trigger,
              recipients: l.recipients,
            }
          : null;
      };
      const c = deps.config;
      res.set('Cache-Control', 'no-store').json({
        zone,
        file: c.subscriptionsFile,
        subscriptions: deps.subscriptions.map((s) => ({
          name: s.name,
          report: s.report,
          report_title: requireReport(s.report).title,
          period: s.period,
          filter: [
            ...(s.vehicle !== null ? [`vehicle ${s.vehicle}`] : []),
            ...(s.department !== null ? [`department ${s.department}`] : []),
            ...(s.account !== null ? [`account ${s.account}`] : []),
          ].join(', '),
          format: s.format,
          to: s.to,
          schedule: s.schedule ?? '',
          if_incomplete: s.ifIncomplete,
          wait_hours: s.ifIncomplete === 'wait' ? s.waitHours : null,
          last_send: sendOf(s.name),
        })),
        month_end_pack: c.reportTo.length
          ? {
              to: c.reportTo,
              schedule: c.reportSchedule,
              deadline_days: c.reportDeadlineDays,
              last_send: sendOf(PACK_SUBSCRIPTION),
            }
          : null,
      } satisfies SubscriptionsAnswer);
    } finally {
      con.closeSync();
    }
  });
  return r;
}
