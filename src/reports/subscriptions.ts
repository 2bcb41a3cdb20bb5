/**
 * Subscriptions (docs/subscriptions.md): any report e-mailed on a cron schedule in the account's
 * zone, for a period relative to the scheduled time, as CSV, XLSX or both (the exports of
 * `fleetsync export`), through FLEETSYNC_SMTP_URL (the alerts' and the month-end pack's mailer).
 *
 * `serve` checks every minute and once at start (`subscriptionTick`): a subscription's slot is the
 * latest instant its cron matched; it is sent once — a row of `subscription_sends` (schema 084)
 * with that subscription and slot means sent, also after a restart — if no more than
 * SUBSCRIPTION_CATCH_UP_HOURS have passed (a slot missed while the server was down goes out once
 * at start; older missed slots are not sent). A period not complete goes out marked partial with
 * the reason, or, with `if_incomplete: wait`, waits until it is complete or `wait_hours` after the
 * slot, then goes out partial. The row is written after the mail server accepted the message: a
 * crash between the two would send that slot once more.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SubscriptionSendAnswer } from '../server/api-types.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createTask } from 'node-cron';
import { mailFrom, smtpTransport } from '../alerts/channels.ts';
import type { Config } from '../config.ts';
import { SUBSCRIPTION_CATCH_UP_HOURS } from '../defaults.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { accountsIn, resolveAccount } from '../store/accounts.ts';
import type { Database } from '../store/db.ts';
import { loadSql, queryJs } from '../store/queries.ts';
import { formatLocal, formatZoned, localDate, type Clock } from '../time.ts';
import { periodCompleteness } from './completeness.ts';
import { exportReport } from './export.ts';
import { summaryLine } from './pack.ts';
import { parseReportParams } from './params.ts';
import { configuredScope, prepareBound, requireReport, resolveZone, type ReportScope } from './run.ts';
import { periodDays, type Subscription } from './subscription-file.ts';

export interface SubscriptionDeps {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
}

export interface SendResult {
  subscription: string;
  account: string;
  report: string;
  fromDay: string;
  toDay: string;
  slotMs: number | null;
  partial: boolean;
  reason: string | null;
  rows: number;
  subject: string;
  attachments: string[];
  to: string[];
  messageId: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** How long after a slot it may still be sent: the wait, then the catch-up window. */
export const slotWindowMs = (sub: Subscription) =>
  (sub.ifIncomplete === 'wait' ? sub.waitHours : 0) * HOUR + SUBSCRIPTION_CATCH_UP_HOURS * HOUR;

/**
 * The latest instant at or before `nowMs`, no further back than `backMs`, at which `schedule`
 * (five-field cron, wall time in `zone`) matches; null when none. A wall time the clocks skip
 * (going forward) has no instant: no slot that day; one they repeat (going back) is one slot. Minute by minute with node-cron's
 * own matcher, so the rule is the one `serve`'s sync schedule follows, on the injected clock.
 */
export function latestSlot(schedule: string, zone: string, nowMs: number, backMs: number): number | null {
  const task = createTask(schedule, () => {}, { timezone: zone });
  try {
    const last = Math.floor(nowMs / MINUTE) * MINUTE;
    for (let t = last; t >= nowMs - backMs; t -= MINUTE)
      if (task.match(new Date(t))) {
        // A wall time that occurs twice (the hour repeated when the clocks go back) is one slot:
        // its first instant, so the second occurrence finds it sent.
        const wall = formatLocal(t, zone);
        const first = [60, 30].map((m) => t - m * MINUTE).find((u) => formatLocal(u, zone) === wall);
        return first ?? t;
      }
    return null;
  } finally {
    void task.destroy();
  }
}

/** What the subscription sends for in words: `vehicle 3, department "Sales"`; '' = the whole fleet. */
const filtersText = (sub: Subscription) =>
  [
    ...(sub.vehicle !== null ? [`vehicle ${sub.vehicle}`] : []),
    ...(sub.department !== null ? [`department ${JSON.stringify(sub.department)}`] : []),
  ].join(', ');

/** The account a subscription reads: its own (which the database must hold), else the configured one. */
async function accountOf(
  con: DuckDBConnection,
  sub: Subscription,
  config: Readonly<Config>,
): Promise<string> {
  if (sub.account === null) return resolveAccount(con, config);
  const all = await accountsIn(con);
  if (all.length > 0 && !all.includes(sub.account))
    throw new FleetsyncError(
      'E_CONFIG',
      `subscription ${sub.name}: this database holds no data for account ${JSON.stringify(sub.account)}; it holds: ${all.join(', ')}`,
    );
  return sub.account;
}

async function readyScope(
  con: DuckDBConnection,
  sub: Subscription,
  deps: SubscriptionDeps,
): Promise<ReportScope> {
  const account = await accountOf(con, sub, deps.config);
  const zone = await resolveZone(con, account, deps.config.timezone);
  return configuredScope(account, zone, deps.now(), deps.config);
}

/** The report, its parameters and whether its period is complete, for a send at `atMs`. */
async function prepare(con: DuckDBConnection, sub: Subscription, scope: ReportScope, atMs: number) {
  const def = requireReport(sub.report);
  const { fromDay, toDay } = periodDays(sub.period, atMs, scope.zone);
  const params = parseReportParams(
    {
      from: fromDay,
      to: toDay,
      ...(sub.vehicle !== null ? { vehicle: String(sub.vehicle) } : {}),
      ...(sub.department !== null ? { department: sub.department } : {}),
    },
    def,
    scope,
  );
  const state = await periodCompleteness(con, scope, [def], params, 'period');
  return { def, params, ...state };
}

/**
 * Builds and sends one subscription for the period relative to `atMs` (the slot, or now on
 * request), then records it. Partial, with the reason, when the period is not complete.
 */
export async function sendSubscription(
  deps: SubscriptionDeps,
  sub: Subscription,
  at: { atMs: number; slotMs: number | null; trigger: 'schedule' | 'cli' },
): Promise<SendResult> {
  const smtpUrl = deps.config.smtpUrl;
  if (!smtpUrl)
    throw new FleetsyncError(
      'E_CONFIG',
      `subscription ${sub.name} needs FLEETSYNC_SMTP_URL (the mail server)`,
    );
  const con = await deps.db.connect();
  const dir = await mkdtemp(join(tmpdir(), 'fleetsync-sub-'));
  const { transport, failure, name: via } = smtpTransport(smtpUrl, 60_000);
  try {
    const scope = await readyScope(con, sub, deps);
    const { def, params, meta, complete, reason } = await prepare(con, sub, scope, at.atMs);
    const { fromDay, toDay } = params;
    const span = fromDay === toDay ? fromDay : `${fromDay}_${toDay}`;
    const formats = sub.format === 'both' ? (['csv', 'xlsx'] as const) : ([sub.format] as const);
    const attachments: { filename: string; path: string }[] = [];
    let rows = 0;
    for (const format of formats) {
      const filename = `${def.name}_${span}.${format}`;
      const path = join(dir, filename);
      rows = (await exportReport(con, def, scope, params, format, path, { manifest: false })).rows;
      attachments.push({ filename, path });
    }
    const partial = !complete;
    const filters = filtersText(sub);
    const periodText = fromDay === toDay ? fromDay : `${fromDay} to ${toDay}`;
    const subject = `fleetsync ${scope.account}: ${def.title}, ${periodText}${partial ? ' (partial)' : ''}`;
    const text = [
      `${def.title} for ${scope.account}, ${periodText} (${sub.period}; ${scope.zone}, local time)${filters ? `, ${filters}` : ''}.`,
      '',
      partial ? `PARTIAL: ${reason}.` : `Complete: ${meta.complete_through_text}.`,
      '',
      await summaryLine(con, def, scope, params),
      '',
      'Blank cells in the attachments are unknown (not synced or no reading), never zero.',
      `Subscription ${sub.name}${at.slotMs !== null ? `, scheduled ${formatZoned(at.slotMs, scope.zone)}` : ', sent on request'}.`,
      `Generated ${localDate(scope.nowMs, scope.zone)} by fleetsync on ${hostname()}.`,
    ].join('\n');
    let messageId: string;
    try {
      const info = await transport.sendMail({
        from: mailFrom(deps.config),
        to: sub.to,
        subject,
        text: text + '\n',
        attachments,
      });
      messageId = String(info.messageId);
    } catch (e) {
      throw new FleetsyncError('E_EXPORT', `subscription ${sub.name} not sent: ${failure(e).message}`, {
        cause: e,
      });
    }
    const record = {
      subscription: sub.name,
      account: scope.account,
      report: def.name,
      slot_ms: at.slotMs,
      sent_ms: deps.now(),
      period_from: fromDay,
      period_to: toDay,
      filters,
      formats: formats.join(', '),
      recipients: sub.to.join(', '),
      rows,
      complete_through: meta.complete_through_day,
      partial,
      reason,
      trigger: at.trigger,
      message_id: messageId,
    };
    await (await prepareBound(con, loadSql('subscriptions/send_insert'), record)).run();
    deps.log.info('subscription sent', {
      subscription: sub.name,
      account: scope.account,
      report: def.name,
      period: periodText,
      partial,
      message_id: messageId,
      via,
    });
    return {
      subscription: sub.name,
      account: scope.account,
      report: def.name,
      fromDay,
      toDay,
      slotMs: at.slotMs,
      partial,
      reason,
      rows,
      subject,
      attachments: attachments.map((a) => a.filename),
      to: sub.to,
      messageId,
    };
  } finally {
    transport.close();
    con.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether the schedule already sent this slot (recorded, so also after a restart). */
async function slotSent(con: DuckDBConnection, name: string, slotMs: number): Promise<boolean> {
  const stmt = await prepareBound(con, loadSql('subscriptions/slot_sent'), {
    subscription: name,
    slot_ms: slotMs,
  });
  const rows = (await stmt.runAndReadAll()).getRowObjectsJS();
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * One scheduled check of every subscription: each whose latest slot is within its window and not
 * yet sent is sent now, unless it waits for a complete period. A failure of one (mail server,
 * account) is logged and does not stop the others; its slot stays unsent and is tried again at
 * the next check while in its window. Returns what was sent.
 */
export async function subscriptionTick(
  deps: SubscriptionDeps,
  subscriptions: readonly Subscription[],
): Promise<SendResult[]> {
  const sent: SendResult[] = [];
  for (const sub of subscriptions) {
    if (!sub.schedule) continue;
    try {
      const con = await deps.db.connect();
      let slotMs: number | null;
      try {
        const scope = await readyScope(con, sub, deps);
        const nowMs = scope.nowMs;
        slotMs = latestSlot(sub.schedule, scope.zone, nowMs, slotWindowMs(sub));
        if (slotMs === null || (await slotSent(con, sub.name, slotMs))) continue;
        if (sub.ifIncomplete === 'wait' && nowMs < slotMs + sub.waitHours * HOUR) {
          const { complete, meta } = await prepare(con, sub, scope, slotMs);
          if (!complete) {
            deps.log.debug('subscription waits for a complete period', {
              subscription: sub.name,
              complete_through: meta.complete_through_day,
              deadline: new Date(slotMs + sub.waitHours * HOUR).toISOString(),
            });
            continue;
          }
        }
      } finally {
        con.closeSync();
      }
      sent.push(await sendSubscription(deps, sub, { atMs: slotMs, slotMs, trigger: 'schedule' }));
    } catch (e) {
      deps.log.error('subscription not sent', { subscription: sub.name, error: describeError(e) });
    }
  }
  return sent;
}

/** A subscription's last send as stored: the answer's fields, the instant in ms. */
export type LastSend = Omit<SubscriptionSendAnswer, 'sent_at'> & {
  subscription: string;
  account: string;
  sent_ms: number;
};

/** The last message of each subscription name (the month-end pack's as `month-end-pack`). */
export async function lastSends(con: DuckDBConnection): Promise<Map<string, LastSend>> {
  const rows = (await queryJs(con, 'subscriptions/last_sends')) as unknown as LastSend[];
  return new Map(rows.map((r) => [r.subscription, { ...r, sent_ms: Number(r.sent_ms) }]));
}
