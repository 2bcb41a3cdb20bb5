/**
 * Report parameters: one zod schema for the query string of the JSON/CSV API and the options of
 * `fleetsync export`. Days are local calendar days in the account's zone, both inclusive; a
 * month selects its whole local month; no range means the current local month up to today. A
 * future month or a range that starts after today is refused (except for the booking reports);
 * a range that reaches past today is answered with a note saying up to when it holds data.
 */
import { z } from 'zod';
import { FleetsyncError } from '../errors.ts';
import { isCalendarDay, lastDayOfMonth, localDate } from '../time.ts';
import type { ReportDef } from './registry.ts';

/** The longest range a report accepts (about three years). */
export const MAX_RANGE_DAYS = 1100;

/** The value given, repeated in a range parameter's error (a date typed wrong is hard to see). */
const got = (input: unknown) => {
  const v = String(input);
  return ` (got ${JSON.stringify([...v].length > 40 ? `${[...v].slice(0, 40).join('')}…` : v)})`;
};

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: (iss) => `must be a calendar day YYYY-MM-DD${got(iss.input)}` })
  .refine(isCalendarDay, { error: (iss) => `is not a calendar day${got(iss.input)}` });

/**
 * A free-text value (a department name as the account writes it: `Children's Services`,
 * `Sales – East`, `Ops: North`): any printable text up to 200 characters. Values are bound
 * parameters, never part of the SQL, so quotes and punctuation are only text; control
 * characters (a line break, NUL) are no name and are refused.
 */
export const MAX_TEXT_CHARS = 200;
const freeText = (what: string) =>
  z
    .string()
    .refine((s) => [...s].length <= MAX_TEXT_CHARS, {
      error: `must be a ${what} of at most ${MAX_TEXT_CHARS} characters`,
    })
    .refine((s) => !/\p{Cc}/u.test(s), { error: `must be a ${what} without control characters` });

const schema = z
  .strictObject({
    from: day.optional(),
    to: day.optional(),
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: (iss) => `must be a month YYYY-MM${got(iss.input)}` })
      .optional(),
    vehicle: z
      .string()
      .regex(/^\d{1,15}$/, { error: 'must be a vehicle id (digits)' })
      .transform(Number)
      .optional(),
    department: freeText('department name').optional(),
    // a driver id, or '-' for the trips without one (the drill-down behind a driver's figure)
    driver: freeText('driver id').optional(),
    // a geofence id: the site_visits of one site (the drill-down behind a site_activity row)
    site: freeText('geofence id').optional(),
    grain: z.enum(['day', 'week', 'month'], { error: 'must be day, week or month' }).optional(),
    limit: z
      .string()
      .regex(/^\d{1,4}$/, { error: 'must be a whole number 1–1000' })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 1000, { error: 'must be a whole number 1–1000' })
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.month && (v.from || v.to))
      ctx.addIssue({ code: 'custom', path: ['month'], message: 'give either month or from/to, not both' });
    if (v.from && v.to && v.to < v.from)
      ctx.addIssue({ code: 'custom', path: ['to'], message: `${v.to} is before from ${v.from}` });
  });

/** Reports of bookings, which are synced a month ahead: a future range is a real question. */
const AHEAD = new Set(['carpool', 'carpool_status', 'carpool_departments']);

/**
 * For a range that reaches past today: up to when it holds data, in words (null otherwise). Sent
 * as `range_note` in JSON and the export manifest and as X-Fleetsync-Range-Note.
 */
export function rangeNote(
  p: Pick<ReportParams, 'toDay'>,
  ctx: { zone: string; nowMs: number },
  completeThroughText: string,
): string | null {
  const today = localDate(ctx.nowMs, ctx.zone);
  if (p.toDay <= today) return null;
  return `the range runs to ${p.toDay}, past today (${today} in ${ctx.zone}): it holds data up to now, ${completeThroughText}`;
}

export interface ReportParams {
  fromDay: string;
  toDay: string;
  vehicle: number | null;
  department: string | null;
  grain: 'day' | 'week' | 'month';
  limit: number;
  /** A driver id, '-' for no driver recorded, null for every trip. */
  driver: string | null;
  /** A geofence id (site_visits of one site), null for every site. */
  site: string | null;
}

const daysBetween = (a: string, b: string) =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/**
 * Validates raw parameters (strings, as from a query string; empty values count as absent) and
 * resolves the range. Throws E_BAD_REQUEST with every problem named.
 */
export function parseReportParams(
  raw: Record<string, unknown>,
  def: ReportDef,
  /** `future: false` skips the refusal of days to come (a first look before the account's zone is known). */
  ctx: { zone: string; nowMs: number; future?: boolean },
): ReportParams {
  // No prototype: a `__proto__` parameter is an unknown key (rejected), not a silent no-op.
  const cleaned: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined || v === '') continue;
    if (Array.isArray(v)) {
      cleaned[k] = 42; // a repeated parameter: let the schema reject it with a type error
      continue;
    }
    cleaned[k] = v;
  }
  for (const k of ['grain', 'limit', 'driver', 'site'] as const)
    if (k in cleaned && !def.extra.includes(k))
      throw new FleetsyncError('E_BAD_REQUEST', `${k}: not a parameter of the ${def.name} report`);
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys'
        ? `unknown parameter(s): ${i.keys.join(', ')}`
        : `${i.path.join('.') || 'parameters'}: ${i.message}`,
    );
    throw new FleetsyncError('E_BAD_REQUEST', problems.join('; '), { details: { problems } });
  }
  const v = parsed.data;
  const today = localDate(ctx.nowMs, ctx.zone);
  let fromDay: string;
  let toDay: string;
  if (v.month) {
    fromDay = `${v.month}-01`;
    toDay = lastDayOfMonth(v.month);
  } else if (v.from || v.to) {
    toDay = v.to ?? (v.from! > today ? v.from! : today);
    fromDay = v.from ?? `${toDay.slice(0, 7)}-01`;
  } else {
    fromDay = `${today.slice(0, 7)}-01`;
    toDay = today;
  }
  // Nothing can be synced for days that have not begun (bookings are synced a month ahead).
  if (!AHEAD.has(def.name) && ctx.future !== false) {
    const where = `today is ${today} in ${ctx.zone}`;
    if (v.month && v.month > today.slice(0, 7))
      throw new FleetsyncError(
        'E_BAD_REQUEST',
        `month: ${v.month} is in the future (${where}); no data exists for it yet`,
      );
    if (fromDay > today)
      throw new FleetsyncError(
        'E_BAD_REQUEST',
        `from: ${fromDay} is in the future (${where}); no data exists for it yet`,
      );
  }
  const span = daysBetween(fromDay, toDay) + 1;
  if (span > MAX_RANGE_DAYS)
    throw new FleetsyncError(
      'E_BAD_REQUEST',
      `range: ${span} days is longer than the ${MAX_RANGE_DAYS} days a report allows`,
    );
  return {
    fromDay,
    toDay,
    vehicle: v.vehicle ?? null,
    department: v.department ?? null,
    grain: v.grain ?? 'day',
    limit: v.limit ?? (def.name === 'runs' ? 100 : 10),
    driver: v.driver ?? null,
    site: v.site ?? null,
  };
}
