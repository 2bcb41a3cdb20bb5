/**
 * The subscriptions file (FLEETSYNC_SUBSCRIPTIONS, JSON; docs/subscriptions.md): reports e-mailed
 * on a cron schedule in the account's zone, each for a period relative to the send time.
 *
 *   { "subscriptions": [
 *       { "name": "daily-mileage", "report": "mileage", "period": "yesterday",
 *         "format": "xlsx", "to": ["ops@example.com"], "schedule": "0 7 * * *" },
 *       { "name": "monthly-fuel", "report": "fuel", "period": "last-month", "department": "Sales",
 *         "format": "both", "to": ["finance@example.com"], "schedule": "0 7 1 * *",
 *         "if_incomplete": "wait", "wait_hours": 72 } ] }
 *
 * The file is checked whole: every problem is named with its line and entry, never only the first,
 * and a file with any problem is refused before anything is sent or stored.
 */
import { parseTree, type ParseError } from 'jsonc-parser';
import { validate as validateCron } from 'node-cron';
import { FleetsyncError } from '../errors.ts';
import { lineIndex, valueOf } from '../prices/file.ts';
import { firstProblems, readUserText } from '../text-file.ts';
import { addDays, localDate } from '../time.ts';
import { MAX_TEXT_CHARS } from './params.ts';
import { getReport, REPORT_NAMES } from './registry.ts';

export const PERIODS = ['yesterday', 'last-week', 'last-month', 'month-to-date'] as const;
export type Period = (typeof PERIODS)[number];
export const SUB_FORMATS = ['csv', 'xlsx', 'both'] as const;
export type SubFormat = (typeof SUB_FORMATS)[number];
export const IF_INCOMPLETE = ['send', 'wait'] as const;
/** The longest wait for a complete period (a week). */
export const MAX_WAIT_HOURS = 168;
/** The name ad hoc sends (`send-report --report …`) are recorded under (no entry's name can be it). */
export const AD_HOC = '(ad hoc)';
/** The month-end pack's name among the subscriptions (FLEETSYNC_REPORT_*): no entry may take it. */
export const PACK_SUBSCRIPTION = 'month-end-pack';

export interface Subscription {
  name: string;
  /** The line of the entry in its file (0: not from a file). */
  line: number;
  report: string;
  period: Period;
  vehicle: number | null;
  department: string | null;
  /** The account whose data is sent; null = the configured one. */
  account: string | null;
  format: SubFormat;
  to: string[];
  /** Cron, five fields, in the account's zone; null = only on request (ad hoc). */
  schedule: string | null;
  ifIncomplete: (typeof IF_INCOMPLETE)[number];
  /** With `wait`: hours after the scheduled time when a period still incomplete goes out partial. */
  waitHours: number;
}

const KEYS = [
  'name',
  'report',
  'period',
  'vehicle',
  'department',
  'account',
  'format',
  'to',
  'schedule',
  'if_incomplete',
  'wait_hours',
];
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const EMAIL = /^[^\s@,]+@[^\s@,]+$/;
const oneOf = (xs: readonly string[]) => xs.join(', ');

/** An e-mail address list, as the file or `--to` gives it: the addresses, or why not. */
export function emailProblem(to: unknown): string | null {
  if (!Array.isArray(to) || to.length === 0) return 'to: must be a list of one or more e-mail addresses';
  const bad = to.filter((a) => typeof a !== 'string' || !EMAIL.test(a));
  return bad.length ? `to: not an e-mail address: ${bad.map((a) => JSON.stringify(a)).join(', ')}` : null;
}

/** Why `period` is not one the subscriptions take (null: it is). */
export function periodProblem(period: unknown): string | null {
  return typeof period === 'string' && (PERIODS as readonly string[]).includes(period)
    ? null
    : `period: ${JSON.stringify(period ?? null)} is not one of ${oneOf(PERIODS)}`;
}

/** Why `format` is not one the subscriptions take (null: it is). */
export function formatProblem(format: unknown): string | null {
  return typeof format === 'string' && (SUB_FORMATS as readonly string[]).includes(format)
    ? null
    : `format: ${JSON.stringify(format ?? null)} is not one of ${oneOf(SUB_FORMATS)}`;
}

/** The problems of one entry (its fields as written), each without the line. */
function entryProblems(f: Record<string, unknown>): string[] {
  const p: string[] = [];
  for (const k of Object.keys(f))
    if (!KEYS.includes(k)) p.push(`unknown key ${JSON.stringify(k)} (known: ${oneOf(KEYS)})`);
  if (typeof f.name !== 'string' || !NAME.test(f.name))
    p.push('name: must be 1–64 lower-case letters, digits, - or _ (it names the subscription)');
  else if (f.name === PACK_SUBSCRIPTION)
    p.push(`name: ${PACK_SUBSCRIPTION} is the month-end pack's (FLEETSYNC_REPORT_*); choose another`);
  if (typeof f.report !== 'string' || !getReport(f.report))
    p.push(`report: ${JSON.stringify(f.report ?? null)} is not a report (${oneOf(REPORT_NAMES)})`);
  const period = periodProblem(f.period);
  if (period) p.push(period);
  const format = formatProblem(f.format);
  if (format) p.push(format);
  const to = emailProblem(f.to);
  if (to) p.push(to);
  if (
    typeof f.schedule !== 'string' ||
    f.schedule.trim().split(/\s+/).length !== 5 ||
    !validateCron(f.schedule)
  )
    p.push(
      `schedule: ${JSON.stringify(f.schedule ?? null)} is not a cron expression of five fields (minute hour day month weekday, e.g. "0 7 * * *")`,
    );
  if (f.vehicle !== undefined && !(Number.isSafeInteger(f.vehicle) && (f.vehicle as number) > 0))
    p.push('vehicle: must be a vehicle id (a whole number)');
  for (const k of ['department', 'account'] as const)
    if (
      f[k] !== undefined &&
      (typeof f[k] !== 'string' || f[k] === '' || [...f[k]].length > MAX_TEXT_CHARS || /\p{Cc}/u.test(f[k]))
    )
      p.push(`${k}: must be text of 1–${MAX_TEXT_CHARS} characters without control characters`);
  const ifIncomplete = f.if_incomplete ?? 'send';
  if (!(IF_INCOMPLETE as readonly unknown[]).includes(ifIncomplete))
    p.push(`if_incomplete: ${JSON.stringify(ifIncomplete)} is not one of ${oneOf(IF_INCOMPLETE)}`);
  if (ifIncomplete === 'wait') {
    const w = f.wait_hours;
    if (!(Number.isInteger(w) && (w as number) >= 1 && (w as number) <= MAX_WAIT_HOURS))
      p.push(`wait_hours: with if_incomplete "wait", a whole number of hours 1–${MAX_WAIT_HOURS}`);
  } else if (f.wait_hours !== undefined) p.push('wait_hours: only with if_incomplete "wait"');
  return p;
}

/** Reads `text` (the file's contents): the subscriptions, and every problem as `line N (entry): …`. */
export function checkSubscriptions(text: string): { subscriptions: Subscription[]; problems: string[] } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  const at = lineIndex(text);
  const problems = errors.map((e) => `line ${at(e.offset)}: not valid JSON here`);
  const subscriptions: Subscription[] = [];
  if (problems.length) return { subscriptions, problems };
  if (!root || root.type !== 'object')
    return {
      subscriptions,
      problems: ['line 1: the file must hold one JSON object { "subscriptions": [ … ] }'],
    };
  let list = null;
  for (const prop of root.children ?? []) {
    const key = String(prop.children![0]!.value);
    if (key === 'subscriptions') list = prop.children![1]!;
    else problems.push(`line ${at(prop.offset)}: unknown key ${JSON.stringify(key)} (known: subscriptions)`);
  }
  if (!list || list.type !== 'array') {
    problems.push(`line ${list ? at(list.offset) : 1}: "subscriptions" must be a list of entries`);
    return { subscriptions, problems };
  }
  const seen = new Map<string, number>();
  (list.children ?? []).forEach((node, i) => {
    const line = at(node.offset);
    const v = valueOf(node);
    const f = (v && typeof v === 'object' && !Array.isArray(v) ? v : null) as Record<string, unknown> | null;
    const where = `line ${line} (entry ${i + 1}${typeof f?.name === 'string' ? `, ${JSON.stringify(f.name)}` : ''})`;
    if (!f) {
      problems.push(`${where}: an entry must be an object`);
      return;
    }
    const p = entryProblems(f);
    if (typeof f.name === 'string' && seen.has(f.name))
      p.push(`name: ${JSON.stringify(f.name)} is already the name of the entry on line ${seen.get(f.name)}`);
    if (typeof f.name === 'string' && !seen.has(f.name)) seen.set(f.name, line);
    problems.push(...p.map((m) => `${where}: ${m}`));
    if (p.length) return;
    subscriptions.push({
      name: f.name as string,
      line,
      report: f.report as string,
      period: f.period as Period,
      vehicle: (f.vehicle as number | undefined) ?? null,
      department: (f.department as string | undefined) ?? null,
      account: (f.account as string | undefined) ?? null,
      format: f.format as SubFormat,
      to: f.to as string[],
      schedule: (f.schedule as string).trim(),
      ifIncomplete: (f.if_incomplete as 'send' | 'wait' | undefined) ?? 'send',
      waitHours: (f.wait_hours as number | undefined) ?? 0,
    });
  });
  return { subscriptions, problems };
}

/** The subscriptions of `path`; E_CONFIG naming the file and every problem (line, entry) otherwise. */
export function readSubscriptions(path: string): Subscription[] {
  let text: string;
  try {
    text = readUserText(path);
  } catch (e) {
    throw new FleetsyncError(
      'E_CONFIG',
      `FLEETSYNC_SUBSCRIPTIONS: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
  const { subscriptions, problems } = checkSubscriptions(text);
  if (problems.length)
    throw new FleetsyncError(
      'E_CONFIG',
      `the subscriptions file ${path} has ${problems.length} problem${problems.length > 1 ? 's' : ''}; nothing was sent:\n  - ${firstProblems(problems).join('\n  - ')}`,
      { details: { problems } },
    );
  return subscriptions;
}

/** Monday of the ISO week of `day`. */
function mondayOf(day: string): string {
  const dow = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((dow + 6) % 7));
}

/**
 * The local days (both inclusive) a period covers when sent at `atMs` in `zone`: `yesterday`; the
 * ISO week (Monday–Sunday) before the one of the send; the local month before the send's;
 * `month-to-date` the month of yesterday from its 1st through yesterday (sent on the 1st: the
 * whole month before), never the day still running.
 */
export function periodDays(period: Period, atMs: number, zone: string): { fromDay: string; toDay: string } {
  const today = localDate(atMs, zone);
  const yesterday = addDays(today, -1);
  switch (period) {
    case 'yesterday':
      return { fromDay: yesterday, toDay: yesterday };
    case 'last-week': {
      const monday = addDays(mondayOf(today), -7);
      return { fromDay: monday, toDay: addDays(monday, 6) };
    }
    case 'last-month': {
      const first = `${today.slice(0, 7)}-01`;
      const last = addDays(first, -1);
      return { fromDay: `${last.slice(0, 7)}-01`, toDay: last };
    }
    case 'month-to-date':
      return { fromDay: `${yesterday.slice(0, 7)}-01`, toDay: yesterday };
  }
}
