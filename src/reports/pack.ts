/**
 * The month-end pack: a closed local month's mileage, fuel and tolls as three XLSX attachments
 * (the exports of `fleetsync export --format xlsx`) with a short summary in the body — totals, the
 * windows left out, how complete the month is — e-mailed to FLEETSYNC_REPORT_TO through
 * FLEETSYNC_SMTP_URL (nodemailer).
 *
 * `serve` checks on FLEETSYNC_REPORT_SCHEDULE (cron, account zone) for the month before the
 * current one: sent once it is complete ("complete through" covers its last day and the mileage
 * and fuel exports of the month say `coverage = complete` on every row), or at
 * FLEETSYNC_REPORT_DEADLINE_DAYS after its end with "partial" in the subject and the reason. Every
 * pack sent is recorded in `report_packs` (schema 031); the schedule sends a month once, and
 * `fleetsync send-report --month YYYY-MM` sends again on request. The row is written after the
 * server accepted the message: a crash between the two would send that month once more.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { mailFrom, smtpTransport } from '../alerts/channels.ts';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import { addDays, localDate, localDayBounds, localMonth, localMonthBounds, type Clock } from '../time.ts';
import { presentation } from './columns.ts';
import { exportReport } from './export.ts';
import { periodCompleteness } from './completeness.ts';
import { parseReportParams, type ReportParams } from './params.ts';
import type { ReportDef } from './registry.ts';
import { requireReport, resolveZone, runReport, type ReportScope } from './run.ts';
import { excludedSummary } from './xlsx.ts';

/** The reports of the pack, in attachment order. */
export const PACK_REPORTS = ['mileage', 'fuel', 'tolls'] as const;

export interface PackDeps {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  /**
   * `serve`'s stop: the pack then stops before its next attachment, or before it sends (a message
   * the mail server is taking is not cut off). Nothing is recorded: the next check sends it.
   */
  signal?: AbortSignal;
}

export interface PackResult {
  account: string;
  month: string;
  partial: boolean;
  reason: string | null;
  messageId: string;
  subject: string;
  attachments: string[];
}

/** A month argument: `YYYY-MM`, a real month; else E_USAGE naming it. */
export function parseMonth(text: unknown, option = '--month'): string {
  if (typeof text !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(text))
    throw new FleetsyncError(
      'E_USAGE',
      `${option} must be a month as YYYY-MM, e.g. 2026-10 (got ${JSON.stringify(text ?? null)})`,
    );
  return text;
}

/** What the pack needs from the config, or E_CONFIG naming every missing setting. */
export function packConfig(config: Readonly<Config>): { smtpUrl: string; to: string[] } {
  const missing = [
    ...(!config.smtpUrl ? ['FLEETSYNC_SMTP_URL (the mail server)'] : []),
    ...(config.reportTo.length === 0 ? ['FLEETSYNC_REPORT_TO (who gets the pack)'] : []),
  ];
  if (missing.length)
    throw new FleetsyncError('E_CONFIG', `the month-end pack needs ${missing.join(' and ')}`);
  return { smtpUrl: config.smtpUrl!, to: config.reportTo };
}

const fmt = (n: number, places: number) =>
  n.toLocaleString('en-GB', { minimumFractionDigits: places, maximumFractionDigits: places });

/**
 * One report's line of a mail's summary: its rows and each totalled column's sum, an unknown sum
 * said as unknown (never 0) and a sum beside blank rows saying it covers only the others.
 */
export async function summaryLine(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
): Promise<string> {
  const { totals, totals_blank: blank, total } = await runReport(con, def, scope, params);
  const sums = def.columns
    .filter((c) => c.total)
    .map((c) => {
      const p = presentation(def.name, c);
      const v = totals[c.name] ?? null;
      // a sum of unknowns is unknown, never 0
      if (v === null) return `${p.label}: unknown`;
      const shown =
        p.display === 'duration'
          ? `${fmt(v / 3600, 1)} h`
          : fmt(v, p.display === 'integer' ? 0 : (p.places ?? 2));
      // a sum beside blank rows (unknown or not applicable) covers only the others, and says so
      const left = blank[c.name] ?? 0;
      const part = left > 0 ? ` (over the rows with a value; ${left} blank)` : '';
      return `${p.label}: ${shown}${p.unit && p.display !== 'duration' ? ` ${p.unit}` : ''}${part}`;
    });
  return `${def.title}: ${total} rows; ${sums.join('; ')}`;
}

/** The reports whose coverage columns the pack's completeness reads (tolls has none: per passage). */
const COVERED_REPORTS = ['mileage', 'fuel'] as const;

/**
 * Whether `month` is complete for the account (completeness.ts: "complete through" covers its
 * last day and every row of the mileage and fuel exports of the month says `coverage =
 * complete`). A first sync of the last 30 days leaves the month before complete through its last
 * day but synced only from the day the sync began: partial, with the share of its vehicle-days
 * synced.
 */
function completeness(con: DuckDBConnection, scope: ReportScope, month: string) {
  const defs = COVERED_REPORTS.map(requireReport);
  return periodCompleteness(con, scope, defs, parseReportParams({ month }, defs[0]!, scope), 'month');
}

/**
 * Builds and sends the pack for `month` of the configured account, then records it. `partial`
 * reason: set when the month is not complete (the caller decided to send anyway).
 */
export async function sendMonthPack(
  deps: PackDeps,
  month: string,
  trigger: 'schedule' | 'cli',
): Promise<PackResult> {
  const { smtpUrl, to } = packConfig(deps.config);
  const con = await deps.db.connect();
  const dir = await mkdtemp(join(tmpdir(), 'fleetsync-pack-'));
  const { transport, failure, name } = smtpTransport(smtpUrl, 60_000);
  try {
    const account = deps.config.account;
    const zone = await resolveZone(con, account, deps.config.timezone);
    const scope: ReportScope = { account, zone, nowMs: deps.now() };
    const { meta, complete, reason } = await completeness(con, scope, month);
    const lines: string[] = [];
    const attachments: { filename: string; path: string }[] = [];
    let excluded: Awaited<ReturnType<typeof excludedSummary>> | undefined;
    for (const name of PACK_REPORTS) {
      deps.signal?.throwIfAborted();
      const def = requireReport(name);
      const params = parseReportParams({ month }, def, scope);
      const filename = `${name}_${month}.xlsx`;
      const path = join(dir, filename);
      await exportReport(con, def, scope, params, 'xlsx', path, { manifest: false });
      attachments.push({ filename, path });
      lines.push(await summaryLine(con, def, scope, params));
      excluded ??= await excludedSummary(con, scope, params);
    }
    const partial = !complete;
    const subject = `fleetsync ${account}: month-end pack ${month}${partial ? ' (partial)' : ''}`;
    const text = [
      `Month-end pack for ${account}, ${month} (${zone}, local time).`,
      '',
      partial ? `PARTIAL: ${reason}.` : `Complete: ${meta.complete_through_text}.`,
      '',
      ...lines,
      '',
      excluded && excluded.windows > 0
        ? `Windows left out of the totals: ${excluded.windows} (${excluded.byReason.map((r) => `${r.label}: ${r.windows}, ${r.hours} h`).join('; ')}).`
        : 'Windows left out of the totals: none.',
      '',
      'Blank cells in the attachments are unknown (not synced or no reading), never zero.',
      `Generated ${localDate(scope.nowMs, zone)} by fleetsync on ${hostname()}.`,
    ].join('\n');
    let messageId: string;
    deps.signal?.throwIfAborted();
    try {
      const info = await transport.sendMail({
        from: mailFrom(deps.config),
        to,
        subject,
        text: text + '\n',
        attachments,
      });
      messageId = String(info.messageId);
    } catch (e) {
      throw new FleetsyncError('E_EXPORT', `month-end pack ${month} not sent: ${failure(e).message}`, {
        cause: e,
      });
    }
    await con.run(
      `INSERT INTO report_packs (account, month, sent_at, message_id, partial, reason, trigger, recipients)
       VALUES ($1, $2, to_timestamp($3 / 1000.0), $4, $5, $6, $7, $8)`,
      [account, month, deps.now(), messageId, partial, reason, trigger, to.join(', ')],
    );
    deps.log.info('month-end pack sent', { account, month, partial, message_id: messageId, via: name });
    return {
      account,
      month,
      partial,
      reason,
      messageId,
      subject,
      attachments: attachments.map((a) => a.filename),
    };
  } finally {
    transport.close();
    con.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether a pack of `month` has been sent for the account (by the schedule or on request). */
async function alreadySent(con: DuckDBConnection, account: string, month: string): Promise<boolean> {
  const rows = (
    await con.runAndReadAll('SELECT count(*) AS n FROM report_packs WHERE account = $1 AND month = $2', [
      account,
      month,
    ])
  ).getRowObjectsJS();
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * One scheduled check: the month before the current local month is sent when complete, or at the
 * deadline as partial; never twice. Returns what was sent, or null with the reason logged.
 */
export async function monthEndTick(deps: PackDeps): Promise<PackResult | null> {
  const con = await deps.db.connect();
  let month: string;
  try {
    const account = deps.config.account;
    const zone = await resolveZone(con, account, deps.config.timezone);
    const nowMs = deps.now();
    const current = localMonth(nowMs, zone);
    const { startMs } = localMonthBounds(current, zone);
    month = localMonth(startMs - 1, zone);
    if (await alreadySent(con, account, month)) {
      deps.log.debug('month-end pack already sent', { account, month });
      return null;
    }
    const { complete, meta } = await completeness(con, { account, zone, nowMs }, month);
    // local midnight that many days into the next month
    const deadline = localDayBounds(addDays(`${current}-01`, deps.config.reportDeadlineDays), zone).startMs;
    if (!complete && nowMs < deadline) {
      deps.log.info('month-end pack waits for complete data', {
        account,
        month,
        complete_through: meta.complete_through_day,
        deadline: new Date(deadline).toISOString(),
      });
      return null;
    }
  } finally {
    con.closeSync();
  }
  deps.signal?.throwIfAborted();
  return sendMonthPack(deps, month, 'schedule');
}
