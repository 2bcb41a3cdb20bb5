/**
 * The Fleet API's rate limits (spec "Limits" table, contract "Rate limits"): per account, a
 * sliding window (60 s on the real service); each endpoint named in the table has its own bucket,
 * every other endpoint draws on one shared default bucket of 1,000.
 *
 * Free of server code so that clients and tests can read the table. Decision: a request the
 * limiter rejects (429) does not count against the window; only accepted requests do.
 */

export type BucketName =
  | 'default'
  | 'fuel_consumed_post'
  | 'fuel_level_post'
  | 'ev_consumption_post'
  | 'ev_range_post'
  | 'ev_soc_post'
  | 'vehicles_vext'
  | 'vehicles_status'
  | 'vehicles_events'
  | 'vehicle_events'
  | 'vehicle_idling'
  | 'vision_status';

export interface BucketDef {
  name: BucketName;
  /** Requests per window (per minute on the real service). */
  limit: number;
  /** The endpoint, as the spec writes it. */
  endpoint: string;
}

export const BUCKETS: readonly BucketDef[] = [
  { name: 'default', limit: 1000, endpoint: 'every endpoint not listed below' },
  { name: 'fuel_consumed_post', limit: 10, endpoint: 'POST /fuel/consumed' },
  { name: 'fuel_level_post', limit: 10, endpoint: 'POST /fuel/level' },
  { name: 'ev_consumption_post', limit: 10, endpoint: 'POST /vehicles/ev-consumption' },
  { name: 'ev_range_post', limit: 10, endpoint: 'POST /vehicles/range' },
  { name: 'ev_soc_post', limit: 10, endpoint: 'POST /vehicles/soc' },
  { name: 'vehicles_vext', limit: 10, endpoint: 'GET /vehicles/vext' },
  { name: 'vehicles_status', limit: 60, endpoint: 'GET /vehicles/status' },
  { name: 'vehicles_events', limit: 60, endpoint: 'GET /vehicles/events' },
  { name: 'vehicle_events', limit: 200, endpoint: 'GET /vehicles/{registration}/events' },
  { name: 'vehicle_idling', limit: 200, endpoint: 'GET /vehicles/{registration}/events/idling' },
  { name: 'vision_status', limit: 6, endpoint: 'GET /vision/status' },
];

export const BUCKET_NAMES: readonly BucketName[] = BUCKETS.map((b) => b.name);

export const DEFAULT_WINDOW_MS = 60_000;

export function bucketLimit(name: BucketName): number {
  return BUCKETS.find((b) => b.name === name)?.limit ?? 1000;
}

/**
 * The bucket a request draws on. `path` may carry the `/rest` prefix and a query string; path
 * segments are compared raw (a percent-encoded registration stays one segment).
 */
export function bucketFor(method: string, path: string): BucketName {
  const m = method.toUpperCase();
  let p = path.split('?')[0] ?? '';
  if (p.startsWith('/rest/') || p === '/rest') p = p.slice(5);
  const s = p.split('/').filter((x) => x !== '');
  const [a, b, c, d] = s;
  if (m === 'POST' && s.length === 2 && a === 'fuel') {
    if (b === 'consumed') return 'fuel_consumed_post';
    if (b === 'level') return 'fuel_level_post';
  }
  if (a === 'vehicles') {
    if (m === 'POST' && s.length === 2) {
      if (b === 'ev-consumption') return 'ev_consumption_post';
      if (b === 'range') return 'ev_range_post';
      if (b === 'soc') return 'ev_soc_post';
    }
    if (m === 'GET' && s.length === 2) {
      if (b === 'vext') return 'vehicles_vext';
      if (b === 'status') return 'vehicles_status';
      if (b === 'events') return 'vehicles_events';
    }
    if (m === 'GET' && s.length === 3 && c === 'events') return 'vehicle_events';
    if (m === 'GET' && s.length === 4 && c === 'events' && d === 'idling') return 'vehicle_idling';
  }
  if (m === 'GET' && s.length === 2 && a === 'vision' && b === 'status') return 'vision_status';
  return 'default';
}

export type LimitDecision =
  { ok: true } | { ok: false; retryAtMs: number; retryAtS: number; retryAfterS: number; limit: number };

/** Sliding-window log per bucket, for one account, on an injected clock. */
export class RateLimiter {
  private readonly log = new Map<BucketName, number[]>();
  private readonly limits: Record<BucketName, number>;

  constructor(
    private readonly windowMs: number = DEFAULT_WINDOW_MS,
    overrides: Partial<Record<BucketName, number>> = {},
  ) {
    const limits = {} as Record<BucketName, number>;
    for (const b of BUCKETS) limits[b.name] = overrides[b.name] ?? b.limit;
    this.limits = limits;
  }

  limitOf(bucket: BucketName): number {
    return this.limits[bucket];
  }

  /** Counts the request when the bucket has room; otherwise says when the oldest one leaves. */
  take(bucket: BucketName, now: number): LimitDecision {
    const times = this.log.get(bucket) ?? [];
    while (times.length && times[0]! + this.windowMs <= now) times.shift();
    this.log.set(bucket, times);
    const limit = this.limits[bucket];
    if (times.length < limit) {
      times.push(now);
      return { ok: true };
    }
    const oldest = times[times.length - limit] ?? times[0] ?? now;
    const retryAtMs = oldest + this.windowMs;
    return {
      ok: false,
      retryAtMs,
      retryAtS: Math.ceil(retryAtMs / 1000),
      retryAfterS: Math.max(1, Math.ceil((retryAtMs - now) / 1000)),
      limit,
    };
  }

  reset(): void {
    this.log.clear();
  }
}
