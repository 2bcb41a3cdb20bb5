/**
 * What every simulated route shares: the request context, the reply shape, the error the routes
 * throw, request-timestamp parsing with window caps, and pagination.
 *
 * Request timestamps are `YYYY-MM-DD HH:MM:SS` in the account zone; the end bound is inclusive to
 * the second, so a request [start, end] is the window [start, end + 1 s). Caps are measured on the
 * wall clock (a local day is 24 h even when the clocks change), as a server working in the account
 * zone does.
 */
import { parseLocal } from '../../time.ts';
import { findVehicle } from '../lookup.ts';
import type { Fleet, SimVehicle } from '../model.ts';
import type { PayloadKind } from '../faults.ts';

export interface RouteContext {
  fleet: Fleet;
  now: number;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  isSubuser: boolean;
}

export interface Reply {
  status?: number;
  body: unknown;
  /** The payload kind of `body.data` (its items when a list), for field faults. */
  kind?: PayloadKind;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Reply;

export interface Route {
  method: string;
  /** Path under /rest with `{name}` segments, e.g. `/trips/{registration}`. */
  path: string;
  handler: Handler;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const DAY_S = 86_400;
export const CAP_31_DAYS_S = 31 * DAY_S;
export const CAP_24_HOURS_S = DAY_S;

const STRICT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Wall-clock seconds of a strict request timestamp (as if UTC), for cap arithmetic. */
function wallSeconds(text: string): number {
  const m = STRICT.exec(text)!;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000;
}

/** One request timestamp; `status` is 422 on most endpoints, 400 where the wire notes say so. */
export function parseRequestTime(
  value: unknown,
  name: string,
  zone: string,
  status = 422,
): { ms: number; wallS: number } {
  if (value === undefined || value === null || value === '')
    throw new ApiError(status, `The ${name} field is required.`);
  if (typeof value !== 'string' || !STRICT.test(value))
    throw new ApiError(status, `The ${name} must be a date in the format YYYY-MM-DD HH:MM:SS.`);
  const ms = parseLocal(value, zone);
  if (ms === null) throw new ApiError(status, `The ${name} is not a valid date.`);
  return { ms, wallS: wallSeconds(value) };
}

export interface Window {
  /** Inclusive start instant. */
  startMs: number;
  /** Exclusive end instant (requested end + 1 s). */
  endMs: number;
}

/** A start/end pair with the end inclusive to the second and a cap in wall-clock seconds. */
export function parseWindow(
  start: unknown,
  end: unknown,
  names: [string, string],
  zone: string,
  capS: number,
  status = 422,
): Window {
  const s = parseRequestTime(start, names[0], zone, status);
  const e = parseRequestTime(end, names[1], zone, status);
  if (e.wallS < s.wallS || e.ms < s.ms)
    throw new ApiError(status, `The ${names[1]} must be a date after or equal to ${names[0]}.`);
  const spanS = e.wallS + 1 - s.wallS;
  if (spanS > capS) {
    const cap = capS % DAY_S === 0 && capS > DAY_S ? `${capS / DAY_S} days` : `${capS / 3600} hours`;
    throw new ApiError(status, `The range from ${names[0]} to ${names[1]} must not exceed ${cap}.`);
  }
  return { startMs: s.ms, endMs: e.ms + 1000 };
}

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;

export interface Page {
  page: number;
  limit: number;
}

function positiveInt(value: unknown, name: string, status: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ApiError(status, `The ${name} must be a positive integer.`);
  return n;
}

/** `page` (1-based) and `limit` (default 10; values over 500 are clamped to 500). */
export function parsePage(page: unknown, limit: unknown, status = 422): Page {
  return {
    page: positiveInt(page, 'page', status) ?? 1,
    limit: Math.min(MAX_LIMIT, positiveInt(limit, 'limit', status) ?? DEFAULT_LIMIT),
  };
}

export function pageOf(q: URLSearchParams, status = 422): Page {
  return parsePage(q.get('page') ?? undefined, q.get('limit') ?? undefined, status);
}

/** The list envelope: one page of `items` and the pagination meta (plus any extra meta keys). */
export function paginate<T>(items: readonly T[], p: Page, extraMeta: Record<string, unknown> = {}) {
  return paginateAs(items, p, (x) => x, extraMeta);
}

/**
 * `paginate(items.map(wire), …)` with `wire` called for the page's items only: a page's cost
 * does not grow with the whole list (`wire` must be a pure function of its item).
 */
export function paginateAs<T, U>(
  items: readonly T[],
  p: Page,
  wire: (x: T) => U,
  extraMeta: Record<string, unknown> = {},
) {
  const total = items.length;
  const first = (p.page - 1) * p.limit;
  const data = items.slice(first, first + p.limit).map((x) => wire(x));
  return {
    data,
    meta: {
      from: data.length ? first + 1 : 0,
      to: data.length ? first + data.length : 0,
      current_page: p.page,
      per_page: p.limit,
      last_page: Math.max(1, Math.ceil(total / p.limit)),
      total,
      ...extraMeta,
    },
  };
}

/** A boolean query filter (`true`/`false`/`1`/`0`); undefined when absent. */
export function boolFilter(q: URLSearchParams, name: string, status = 422): boolean | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ApiError(status, `The ${name} field must be true or false.`);
}

export function intFilter(q: URLSearchParams, name: string, status = 422): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new ApiError(status, `The ${name} must be an integer.`);
  return n;
}

export function notFound(what: string): ApiError {
  return new ApiError(404, `${what} not found.`);
}

/** Instants rounded down to whole seconds, as the real service stores them. */
export const sec = (ms: number) => Math.floor(ms / 1000) * 1000;

/** The vehicle whose plate is exactly `registration` (already percent-decoded), else 404. */
export function vehicleByRegistration(fleet: Fleet, registration: string | undefined): SimVehicle {
  const v = findVehicle(fleet, registration);
  if (!v) throw notFound(`Vehicle ${JSON.stringify(registration ?? '')}`);
  return v;
}

/**
 * The body of a bulk POST (fuel, EV): `registrations` (1–100 known plates), a ≤ 24-hour window,
 * `page` and `limit` in the body. Errors name the field, as the real service does.
 */
export function bulkBody(ctx: RouteContext): {
  vehicles: SimVehicle[];
  w: Window;
  body: Record<string, unknown>;
} {
  const body = ctx.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(422, 'The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  const regs = b.registrations;
  if (!Array.isArray(regs) || regs.length === 0)
    throw new ApiError(422, 'The registrations field is required and must be a non-empty list.');
  if (regs.length > 100)
    throw new ApiError(422, 'The registrations field must not have more than 100 items.');
  const vehicles = regs.map((r, i) => {
    const v = findVehicle(ctx.fleet, r);
    if (!v) throw new ApiError(422, `The selected registrations.${i} is invalid.`);
    return v;
  });
  const w = parseWindow(
    b.start_timestamp,
    b.end_timestamp,
    ['start_timestamp', 'end_timestamp'],
    ctx.fleet.timezone,
    CAP_24_HOURS_S,
  );
  return { vehicles, w, body: b };
}
