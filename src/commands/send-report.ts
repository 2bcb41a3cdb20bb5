/**
 * `fleetsync send-report`: e-mails a report now, whether or not the schedule sent it before, and
 * records it (docs/subscriptions.md).
 *
 *   send-report <subscription>                  an entry of FLEETSYNC_SUBSCRIPTIONS, for its period
 *                                               relative to now
 *   send-report --report R --period P --to a@b  ad hoc (--format csv|xlsx|both, --vehicle,
 *                                               --department, --account)
 *   send-report --month YYYY-MM                 the month-end pack of that month (FLEETSYNC_REPORT_TO);
 *   send-report month-end-pack                  … of the month before the current one
 *   send-report --list                          the subscriptions and the last send of each
 *
 * A period not complete is sent marked partial, with the reason. A bad subscriptions file or bad
 * options are refused (exit 2) before anything is sent or stored.
 */
import { loadConfig, secretsOf, type Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { packConfig, parseMonth, sendMonthPack } from '../reports/pack.ts';
import {
  AD_HOC,
  PACK_SUBSCRIPTION,
  emailProblem,
  formatProblem,
  periodProblem,
  readSubscriptions,
  type Period,
  type SubFormat,
  type Subscription,
} from '../reports/subscription-file.ts';
import { requireReport, resolveZone } from '../reports/run.ts';
import { resolveAccount } from '../store/accounts.ts';
import { openDatabase } from '../store/db.ts';
import { formatZoned, localMonth, localMonthBounds } from '../time.ts';
import type { Command, RunContext } from './command.ts';

const usage = [
  'fleetsync send-report <subscription>           (an entry of FLEETSYNC_SUBSCRIPTIONS, now)',
  '       fleetsync send-report --report NAME --period yesterday|last-week|last-month|month-to-date',
  '                             --to a@b[,c@d] [--format csv|xlsx|both] [--vehicle ID] [--department D] [--account A]',
  '       fleetsync send-report --month YYYY-MM  |  month-end-pack   (the month-end pack)',
  '       fleetsync send-report --list',
].join('\n');

const usageError = (message: string) => new FleetsyncError('E_USAGE', `${message}\nusage: ${usage}`);

const AD_HOC_OPTIONS = ['report', 'period', 'to', 'format', 'vehicle', 'department', 'account'] as const;

/** The ad hoc subscription of `--report …`, or E_USAGE naming every problem. */
function adHoc(values: Record<string, string | boolean | undefined>): Subscription {
  const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const to = (text('to') ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const vehicle = text('vehicle');
  const problems = [
    ...(text('report') === undefined ? ['--report: required'] : []),
    ...(text('period') === undefined ? ['--period: required'] : [periodProblem(text('period'))]),
    emailProblem(to),
    formatProblem(text('format') ?? 'xlsx'),
    ...(vehicle !== undefined && !/^\d{1,15}$/.test(vehicle)
      ? ['vehicle: must be a vehicle id (digits)']
      : []),
  ]
    .filter((p): p is string => p !== null)
    .map((p) => (p.startsWith('--') ? p : `--${p}`));
  if (text('report') !== undefined)
    try {
      requireReport(text('report')!);
    } catch (e) {
      problems.unshift(`--report: ${(e as Error).message}`);
    }
  if (problems.length) throw usageError(problems.join('; '));
  return {
    name: AD_HOC,
    line: 0,
    report: text('report')!,
    period: text('period') as Period,
    vehicle: vehicle !== undefined ? Number(vehicle) : null,
    department: text('department') ?? null,
    account: text('account') ?? null,
    format: (text('format') ?? 'xlsx') as SubFormat,
    to,
    schedule: null,
    ifIncomplete: 'send',
    waitHours: 0,
  };
}

function logger(config: Readonly<Config>, ctx: RunContext) {
  return createLogger({
    now: ctx.now,
    level: config.logLevel,
    format: config.logFormat,
    secrets: secretsOf(config),
    write: (line) => ctx.stderr(line + '\n'),
  });
}

/** The subscriptions of the file (none without FLEETSYNC_SUBSCRIPTIONS). */
const fileSubscriptions = (config: Readonly<Config>) =>
  config.subscriptionsFile ? readSubscriptions(config.subscriptionsFile) : [];

async function list(config: Readonly<Config>, ctx: RunContext): Promise<void> {
  const subs = fileSubscriptions(config);
  const db = await openDatabase(config.dbPath, {
    mustExist: true,
    whileServing:
      'For `send-report --list`: GET /api/subscriptions on the running server lists the same ' +
      'subscriptions with their last sends, and the server sends them on their schedules itself.',
  });
  try {
    const con = await db.connect();
    try {
      const account = await resolveAccount(con, config);
      const zone = await resolveZone(con, account, config.timezone);
      const { lastSends } = await import('../reports/subscriptions.ts');
      const last = await lastSends(con);
      const lastText = (name: string) => {
        const l = last.get(name);
        if (!l) return 'never sent';
        return `last sent ${formatZoned(l.sent_ms, zone)} (${l.trigger}) to ${l.recipients}: ${l.period_from} to ${l.period_to}${l.partial ? `, PARTIAL: ${l.reason}` : ', complete'}`;
      };
      const lines = subs.map((s) => {
        const filter = [
          ...(s.vehicle !== null ? [`vehicle ${s.vehicle}`] : []),
          ...(s.department !== null ? [`department ${JSON.stringify(s.department)}`] : []),
          ...(s.account !== null ? [`account ${s.account}`] : []),
        ].join(', ');
        const wait = s.ifIncomplete === 'wait' ? `, waits up to ${s.waitHours} h for a complete period` : '';
        return `${s.name}: ${s.report}, ${s.period}${filter ? ` (${filter})` : ''}, ${s.format}, to ${s.to.join(', ')}, at "${s.schedule}" (${zone})${wait}\n    ${lastText(s.name)}`;
      });
      if (config.reportSchedule || config.reportTo.length)
        lines.push(
          `${PACK_SUBSCRIPTION}: mileage, fuel, tolls, last-month, xlsx, to ${config.reportTo.join(', ') || '(FLEETSYNC_REPORT_TO not set)'}, ` +
            `${config.reportSchedule ? `checked at "${config.reportSchedule}" (${zone}), waits up to ${config.reportDeadlineDays} days after the month for a complete month` : 'only on request (FLEETSYNC_REPORT_SCHEDULE not set)'}\n    ${lastText(PACK_SUBSCRIPTION)}`,
        );
      if (lines.length && !config.smtpUrl)
        lines.push(
          'FLEETSYNC_SMTP_URL is not set: none of these is sent until it is (serve and send-report refuse to start without it)',
        );
      ctx.stdout(
        lines.length
          ? `${lines.join('\n')}\n`
          : 'no subscriptions (set FLEETSYNC_SUBSCRIPTIONS, or FLEETSYNC_REPORT_TO for the month-end pack)\n',
      );
    } finally {
      con.closeSync();
    }
  } finally {
    db.close();
  }
}

export const sendReportCommand: Command = {
  summary:
    'E-mails a report now: a subscription, an ad hoc report, or the month-end pack; --list shows them.',
  usage,
  options: {
    month: { type: 'string' },
    list: { type: 'boolean' },
    ...Object.fromEntries(AD_HOC_OPTIONS.map((k) => [k, { type: 'string' as const }])),
  },
  async run({ values, positionals }, ctx) {
    if (positionals.length > 1) throw usageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
    const name = positionals[0];
    const adHocGiven = AD_HOC_OPTIONS.filter((k) => values[k] !== undefined);
    const modes = [
      ...(name !== undefined ? [`<subscription> (${name})`] : []),
      ...(adHocGiven.length ? ['--report …'] : []),
      ...(values.month !== undefined && name !== PACK_SUBSCRIPTION ? ['--month'] : []),
      ...(values.list ? ['--list'] : []),
    ];
    if (modes.length > 1) throw usageError(`give one of ${modes.join(', ')}, not several`);
    if (modes.length === 0) throw usageError('say what to send');
    const month = values.month !== undefined ? parseMonth(values.month) : undefined;
    // Listing sends nothing: it needs no mail server (sending does, and is refused without one).
    const loaded = loadConfig(ctx.env, { sendsNoMail: values.list === true });
    if (values.list) return list(loaded, ctx);
    if (month !== undefined || name === PACK_SUBSCRIPTION) {
      packConfig(loaded); // refuse before opening the database
      return sendPack(loaded, ctx, month);
    }
    // Refused before the database is opened: a bad file, an unknown name, bad options.
    let sub: Subscription;
    if (name !== undefined) {
      const subs = fileSubscriptions(loaded);
      const found = subs.find((s) => s.name === name);
      if (!found)
        throw usageError(
          `no subscription ${JSON.stringify(name)}${loaded.subscriptionsFile ? ` in ${loaded.subscriptionsFile}` : ' (FLEETSYNC_SUBSCRIPTIONS is not set)'}; ` +
            `known: ${[...subs.map((s) => s.name), PACK_SUBSCRIPTION].join(', ')}`,
        );
      sub = found;
    } else sub = adHoc(values);
    if (!loaded.smtpUrl)
      throw new FleetsyncError('E_CONFIG', 'send-report needs FLEETSYNC_SMTP_URL (the mail server)');
    const db = await openDatabase(loaded.dbPath, { mustExist: true });
    try {
      const { sendSubscription } = await import('../reports/subscriptions.ts');
      const nowMs = ctx.now();
      const res = await sendSubscription(
        { db, config: loaded, log: logger(loaded, ctx), now: ctx.now },
        sub,
        {
          atMs: nowMs,
          slotMs: null,
          trigger: 'cli',
        },
      );
      ctx.stdout(
        `sent ${res.report} of ${res.account} (${res.fromDay} to ${res.toDay}) to ${res.to.join(', ')}: ${res.attachments.join(', ')}` +
          `${res.partial ? ` — PARTIAL: ${res.reason}` : ''} (message ${res.messageId})\n`,
      );
    } finally {
      db.close();
    }
  },
};

/** The month-end pack of `month` (default: the month before the current one in the account's zone). */
async function sendPack(loaded: Readonly<Config>, ctx: RunContext, month: string | undefined): Promise<void> {
  const log = logger(loaded, ctx);
  const db = await openDatabase(loaded.dbPath, { mustExist: true });
  try {
    const con = await db.connect();
    let account: string;
    let zone: string;
    try {
      account = await resolveAccount(con, loaded, { mustExist: true });
      zone = await resolveZone(con, account, loaded.timezone);
    } finally {
      con.closeSync();
    }
    const m = month ?? localMonth(localMonthBounds(localMonth(ctx.now(), zone), zone).startMs - 1, zone);
    const res = await sendMonthPack({ db, config: { ...loaded, account }, log, now: ctx.now }, m, 'cli');
    ctx.stdout(
      `sent the ${m} pack of ${account} to ${loaded.reportTo.join(', ')}: ${res.attachments.join(', ')}` +
        `${res.partial ? ` — PARTIAL: ${res.reason}` : ''} (message ${res.messageId})\n`,
    );
  } finally {
    db.close();
  }
}
