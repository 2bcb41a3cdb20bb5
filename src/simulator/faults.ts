/**
 * Fault injection for the simulated Fleet API: the failures a sync must survive, on a schedule
 * ("every N requests") so that tests are deterministic. Changeable at runtime (setFaults).
 *
 * Counting: each fault kind has its own request counter (the 429 counter only counts requests of
 * `rateLimitBucket` when one is given). When several kinds fall on the same request, the first in
 * FAULT_ORDER wins. Injected faults are counted apart from genuine 429s and never draw on the
 * rate limiter (the request is answered before the limiter sees it).
 */
import type { PageFault } from './page-faults.ts';
import type { BucketName } from './ratelimit.ts';

/** Header variants of an injected 429. */
export type RetryHeaderVariant =
  /** Correct `X-RateLimit-Retry-At` (epoch s) and `X-RateLimit-Retry-After-Seconds`. */
  | 'normal'
  /** Both say "now": `Retry-After-Seconds: 0`, `Retry-At` = the current epoch second. */
  | 'zero'
  /** Neither header is sent. */
  | 'missing'
  /** Absurd values: a wait of a year, and a `Retry-At` that is not a number. */
  | 'absurd';

/** Payload kinds whose fields can be renamed or removed (`fieldFault`). */
export type PayloadKind =
  | 'vehicle'
  | 'vehicle_status'
  | 'trip'
  | 'odometer'
  | 'fuel_consumed'
  | 'fuel_level'
  | 'fuel_level_history'
  | 'fuel_fill'
  | 'geofence'
  | 'visit'
  | 'booking'
  | 'carpool_driver'
  | 'carpool_vehicle'
  | 'booking_rule'
  | 'activity'
  | 'driver'
  | 'ev_consumption';

export interface FaultOptions {
  /** Every Nth request (of `rateLimitBucket` if given) answers 429. */
  rateLimitEvery?: number;
  rateLimitBucket?: BucketName;
  rateLimitHeaders?: RetryHeaderVariant;
  /** The wait an injected `normal` 429 announces (default 1 s). */
  rateLimitRetryAfterS?: number;
  /** Every Nth request answers a 5xx (`serverErrorStatus`, default 503) with a JSON error body. */
  serverErrorEvery?: number;
  serverErrorStatus?: number;
  /** Added to every response (real time, not the injected clock). */
  latencyMs?: number;
  /** Every Nth request gets a 200 whose JSON body is cut in half (Content-Length matches the cut). */
  truncateEvery?: number;
  /** Every Nth request has its connection reset (TCP RST) before any answer. */
  resetEvery?: number;
  /** Every Nth request never gets an answer (the socket stays open until the client gives up). */
  hangEvery?: number;
  /** Every Nth request gets a 200 with an HTML body (a proxy page) instead of JSON. */
  nonJsonEvery?: number;
  /** In every payload of `kind`, `field` is renamed to `renameTo`, or removed when it is absent. */
  fieldFault?: { kind: PayloadKind; field: string; renameTo?: string };
  /** One page of every paged answer (or of one route's) does not add up (page-faults.ts), on every request. */
  pageFault?: PageFault;
  /** The largest `limit` the server honours (default 500): more pages for a test's small fleet. */
  pageLimit?: number;
  /** The account that surprises: what the real API sends that a version did not know when it shipped. */
  surprises?: Surprises;
}

/**
 * Items of `kind` whose fields equal `where` (every item when it is empty or absent) are sent with
 * `set`'s fields on top: a value the spec does not list (`booking_status: 'BOOKING_STATUS_ON_HOLD'`),
 * a field nobody mapped yet (`fuel_card_id: 'FC-1'`).
 */
export interface PayloadChange {
  kind: PayloadKind;
  where?: Record<string, unknown>;
  set: Record<string, unknown>;
}

export interface Surprises {
  changes?: readonly PayloadChange[];
  /** Response timestamps ISO-style, `2026-03-01T08:15:00+11:00`, instead of `2026-03-01 08:15:00+11`. */
  isoTimestamps?: boolean;
}

const SPACE_STYLE = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})([+-]\d{2})(?::?(\d{2}))?$/;

/** A wire value with every space-style timestamp in it (nested too) written ISO-style with `T`. */
export function isoStyle(v: unknown): unknown {
  if (typeof v === 'string') {
    const m = SPACE_STYLE.exec(v);
    return m ? `${m[1]}T${m[2]}${m[3]}:${m[4] ?? '00'}` : v;
  }
  if (Array.isArray(v)) return v.map(isoStyle);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, isoStyle(x)]));
  return v;
}

export type FaultKind = 'rate_limit' | 'server_error' | 'truncate' | 'reset' | 'hang' | 'non_json';

export const FAULT_ORDER: readonly FaultKind[] = [
  'hang',
  'reset',
  'server_error',
  'rate_limit',
  'truncate',
  'non_json',
];

const EVERY: Record<FaultKind, keyof FaultOptions> = {
  rate_limit: 'rateLimitEvery',
  server_error: 'serverErrorEvery',
  truncate: 'truncateEvery',
  reset: 'resetEvery',
  hang: 'hangEvery',
  non_json: 'nonJsonEvery',
};

export class FaultInjector {
  private opts: FaultOptions;
  private readonly counters = new Map<FaultKind, number>();

  constructor(opts: FaultOptions = {}) {
    this.opts = { ...opts };
  }

  get options(): Readonly<FaultOptions> {
    return this.opts;
  }

  /** Replaces the options and restarts the counters. */
  set(opts: FaultOptions): void {
    this.opts = { ...opts };
    this.counters.clear();
  }

  /** The fault (if any) for the next request of `bucket`; advances every applicable counter. */
  next(bucket: BucketName): FaultKind | null {
    let chosen: FaultKind | null = null;
    for (const kind of FAULT_ORDER) {
      const every = this.opts[EVERY[kind]];
      if (typeof every !== 'number' || !(every >= 1)) continue;
      if (kind === 'rate_limit' && this.opts.rateLimitBucket && this.opts.rateLimitBucket !== bucket)
        continue;
      const n = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, n);
      if (n % Math.floor(every) === 0 && chosen === null) chosen = kind;
    }
    return chosen;
  }

  /** Headers of an injected 429 for the variant configured. */
  retryHeaders(nowMs: number): Record<string, string> {
    const variant = this.opts.rateLimitHeaders ?? 'normal';
    const after = Math.max(0, Math.round(this.opts.rateLimitRetryAfterS ?? 1));
    const nowS = Math.ceil(nowMs / 1000);
    switch (variant) {
      case 'normal':
        return {
          'X-RateLimit-Retry-At': String(nowS + after),
          'X-RateLimit-Retry-After-Seconds': String(after),
        };
      case 'zero':
        return { 'X-RateLimit-Retry-At': String(nowS), 'X-RateLimit-Retry-After-Seconds': '0' };
      case 'missing':
        return {};
      case 'absurd':
        return { 'X-RateLimit-Retry-At': 'soon', 'X-RateLimit-Retry-After-Seconds': '31536000' };
    }
  }

  /** Whether payloads are changed at all (`fieldFault` or `surprises`). */
  get changesPayloads(): boolean {
    return this.opts.fieldFault !== undefined || this.opts.surprises !== undefined;
  }

  /** Applies `surprises`, then `fieldFault`, to one payload object of `kind` (on a copy). */
  mangle(kind: PayloadKind, item: Record<string, unknown>): Record<string, unknown> {
    return this.fieldFault(kind, this.surprise(kind, item));
  }

  private surprise(kind: PayloadKind, item: Record<string, unknown>): Record<string, unknown> {
    const s = this.opts.surprises;
    if (!s) return item;
    let out = item;
    for (const c of s.changes ?? [])
      if (c.kind === kind && Object.entries(c.where ?? {}).every(([k, v]) => out[k] === v))
        out = { ...out, ...c.set };
    return s.isoTimestamps ? (isoStyle(out) as Record<string, unknown>) : out;
  }

  private fieldFault(kind: PayloadKind, item: Record<string, unknown>): Record<string, unknown> {
    const f = this.opts.fieldFault;
    if (!f || f.kind !== kind || !(f.field in item)) return item;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item)) {
      if (k !== f.field) out[k] = v;
      else if (f.renameTo) out[f.renameTo] = v;
    }
    return out;
  }
}
