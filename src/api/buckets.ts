/**
 * Rate buckets: the spec's Limits table as sliding-window logs, one per bucket, shared by every
 * concurrent request of a client. A request waits for its bucket *before* it is sent, so the
 * steady state has no 429 at all; a 429 pauses the whole bucket (see retry.ts for how long).
 *
 * The server counts arrivals, we count sends. Latency jitter can make two sends `windowMs` apart
 * arrive less than `windowMs` apart, so a slot is freed only `windowMs + margin` after its send
 * (margin = `safetyMargin × windowMs`, default 2 % = 1.2 s of a 60 s window, and never under
 * MIN_SAFETY_MARGIN_MS), and that send is counted from its answer: the server stamped the request
 * at some moment between its departure and its answer, so a slot counted from the answer is free
 * whatever the delay on the way in was (a busy server stamping a burst's arrivals late by more
 * than the margin drew genuine 429s when the slot counted from the departure).
 */
import { DEFAULT_RATE_WINDOW_MS } from '../defaults.ts';
export type BucketName =
  | 'default'
  | 'fuel_consumed_bulk'
  | 'fuel_level_bulk'
  | 'ev_consumption'
  | 'ev_range'
  | 'ev_soc'
  | 'vext'
  | 'vehicles_status'
  | 'vehicles_events'
  | 'vehicle_events'
  | 'vehicle_idling'
  | 'vision_status';

/** Requests per window (60 s), from the spec's Limits table. */
export const BUCKET_LIMITS: Record<BucketName, number> = {
  default: 1000,
  fuel_consumed_bulk: 10,
  fuel_level_bulk: 10,
  ev_consumption: 10,
  ev_range: 10,
  ev_soc: 10,
  vext: 10,
  vehicles_status: 60,
  vehicles_events: 60,
  vehicle_events: 200,
  vehicle_idling: 200,
  vision_status: 6,
};

/** Each bucket as the spec's Limits table names it (what FLEETSYNC_LIMITS and the log use). */
export const BUCKET_SPEC_NAMES: Record<BucketName, string> = {
  default: 'default',
  fuel_consumed_bulk: 'POST /fuel/consumed',
  fuel_level_bulk: 'POST /fuel/level',
  ev_consumption: 'POST /vehicles/ev-consumption',
  ev_range: 'POST /vehicles/range',
  ev_soc: 'POST /vehicles/soc',
  vext: 'GET /vehicles/vext',
  vehicles_status: 'GET /vehicles/status',
  vehicles_events: 'GET /vehicles/events',
  vehicle_events: 'GET /vehicles/{registration}/events',
  vehicle_idling: 'GET /vehicles/{registration}/events/idling',
  vision_status: 'GET /vision/status',
};

export const DEFAULT_WINDOW_MS = DEFAULT_RATE_WINDOW_MS;
export const DEFAULT_SAFETY_MARGIN = 0.02;
/**
 * The margin never drops below this: arrival jitter (a busy event loop on either side, a GC pause)
 * does not shrink with the window, so a short window (the simulator's 1 s) needs an absolute floor.
 * 150 ms was not enough once pages were fetched eight at a time: the simulator, one thread, then
 * stamped some arrivals 150–400 ms after they were sent (1–4 genuine 429s per run at 1.5 s and
 * 6 s windows). The real 60 s window has 1.2 s of margin anyway.
 */
export const MIN_SAFETY_MARGIN_MS = 500;

/** The bucket a request draws on; `path` is relative to the base URL (`/fuel/consumed`), query ignored. */
export function bucketFor(method: string, path: string): BucketName {
  const m = method.toUpperCase();
  const p = (path.split('?')[0] ?? '').replace(/^\/rest(?=\/)/, '').replace(/\/+$/, '');
  const seg = p.split('/').filter(Boolean);
  if (m === 'POST') {
    if (p === '/fuel/consumed') return 'fuel_consumed_bulk';
    if (p === '/fuel/level') return 'fuel_level_bulk';
    if (p === '/vehicles/ev-consumption') return 'ev_consumption';
    if (p === '/vehicles/range') return 'ev_range';
    if (p === '/vehicles/soc') return 'ev_soc';
    return 'default';
  }
  if (m !== 'GET') return 'default';
  if (p === '/vehicles/vext') return 'vext';
  if (p === '/vehicles/status') return 'vehicles_status';
  if (p === '/vehicles/events') return 'vehicles_events';
  if (p === '/vision/status') return 'vision_status';
  if (seg.length === 3 && seg[0] === 'vehicles' && seg[2] === 'events') return 'vehicle_events';
  if (seg.length === 4 && seg[0] === 'vehicles' && seg[2] === 'events' && seg[3] === 'idling')
    return 'vehicle_idling';
  return 'default';
}

export function limitFor(bucket: string, limits?: Partial<Record<BucketName, number>>): number {
  const l = (limits as Record<string, number | undefined> | undefined)?.[bucket];
  return l ?? (BUCKET_LIMITS as Record<string, number>)[bucket] ?? BUCKET_LIMITS.default;
}

/**
 * The least wall time the limits allow for `requestsByBucket` (keys are bucket names; unknown
 * names use the default limit). Buckets run in parallel, so the answer is the slowest bucket: a
 * bucket of limit L sends its first L at once and then needs one more full window per further L,
 * i.e. `(ceil(n / L) - 1) × windowMs` (0 for n ≤ L). `safetyMargin` (default 0) lengthens each
 * window the way the client does. Latency and retries come on top.
 */
export function leastDurationMs(
  requestsByBucket: Record<string, number>,
  opts: { windowMs: number; limits?: Partial<Record<BucketName, number>>; safetyMargin?: number },
): number {
  const window = opts.windowMs * (1 + (opts.safetyMargin ?? 0));
  let worst = 0;
  for (const [bucket, n] of Object.entries(requestsByBucket)) {
    if (!(n > 0)) continue;
    const limit = Math.max(1, limitFor(bucket, opts.limits));
    worst = Math.max(worst, (Math.ceil(n / limit) - 1) * window);
  }
  return Math.round(worst);
}

/**
 * A reserved send slot; `sent()` re-stamps it when the request actually leaves (after a concurrency
 * wait), `answered()` when its answer (or its failure) is back: the latest moment the server can
 * have counted it.
 */
export interface Ticket {
  sent(): void;
  answered(): void;
}

export interface BucketSetOptions {
  windowMs: number;
  limits?: Partial<Record<BucketName, number>>;
  safetyMargin: number;
  /** Absolute floor of the margin in ms (default MIN_SAFETY_MARGIN_MS). */
  minMarginMs?: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface BucketState {
  limit: number;
  /** Each send's stamp; `open` until its answer is back (it cannot leave the window before). */
  log: { t: number; open: boolean }[];
  pausedUntil: number;
  waitedMs: number;
  queue: Promise<unknown>;
}

export interface BucketSet {
  /** Waits (FIFO per bucket) until the bucket has a free slot and is not paused, then reserves it. */
  acquire(bucket: BucketName, signal?: AbortSignal): Promise<Ticket>;
  /** Pauses the whole bucket until `untilMs` (never shortens an existing pause). */
  pause(bucket: BucketName, untilMs: number): void;
  /**
   * The account's last requests ended `agoMs` ago (sent by another client maybe: a previous run,
   * another process): they may still count in the server's windows, which this client's logs do
   * not hold, so every bucket waits until a full window (and the margin) has passed since then.
   * Returns that wait in ms (0: none).
   */
  holdWindowSince(agoMs: number): number;
  /** Sends counted in the current window, for progress and tests. */
  inWindow(bucket: BucketName): number;
  pausedUntil(bucket: BucketName): number;
  /** Counts a wait spent outside the queue (a request a 429 sent back, waiting out pause + jitter). */
  addWait(bucket: BucketName, ms: number): void;
  waitedMs(): Record<string, number>;
  /** The latest send or answer of any bucket (epoch ms, null: none yet) and the sends not answered yet. */
  activity(): { lastMs: number | null; inFlight: number };
}

export function createBucketSet(o: BucketSetOptions): BucketSet {
  const horizon =
    o.windowMs +
    (o.safetyMargin > 0
      ? Math.max(Math.ceil(o.windowMs * o.safetyMargin), o.minMarginMs ?? MIN_SAFETY_MARGIN_MS)
      : 0);
  const states = new Map<BucketName, BucketState>();
  const state = (b: BucketName): BucketState => {
    let s = states.get(b);
    if (!s) {
      s = {
        limit: Math.max(1, limitFor(b, o.limits)),
        log: [],
        pausedUntil: 0,
        waitedMs: 0,
        queue: Promise.resolve(),
      };
      states.set(b, s);
    }
    return s;
  };
  let lastMs: number | null = null;
  let inFlight = 0;
  // A send still unanswered stays in its window however long it takes: the server may stamp it at
  // any moment until its answer (dropped by its send time, a slow request let the client send one
  // more than the server counts: a genuine 429 on a loaded machine).
  const prune = (s: BucketState, t: number) => {
    s.log = s.log.filter((e) => e.open || e.t + horizon > t);
  };
  /** How often a full bucket whose slots are all unanswered sends looks again. */
  const inFlightPollMs = Math.max(10, Math.min(1_000, Math.ceil(o.windowMs / 20)));

  async function waitTurn(s: BucketState, start: number, signal?: AbortSignal): Promise<Ticket> {
    for (;;) {
      signal?.throwIfAborted();
      const t = o.now();
      if (t < s.pausedUntil) {
        await o.sleep(s.pausedUntil - t, signal);
        continue;
      }
      prune(s, t);
      if (s.log.length < s.limit) {
        const entry = { t, open: true };
        s.log.push(entry);
        s.waitedMs += t - start;
        const stamp = () => {
          entry.t = Math.max(entry.t, o.now());
          lastMs = Math.max(lastMs ?? 0, entry.t);
        };
        lastMs = Math.max(lastMs ?? 0, t);
        inFlight++;
        let open = true;
        return {
          sent: stamp,
          answered: () => {
            stamp();
            if (open) inFlight--;
            open = false;
            entry.open = false;
          },
        };
      }
      const answered = s.log.filter((e) => !e.open);
      const freed = answered.length ? Math.min(...answered.map((e) => e.t)) + horizon - t : Infinity;
      await o.sleep(Math.max(1, Math.min(freed, inFlightPollMs)), signal);
    }
  }

  return {
    acquire(bucket, signal) {
      const s = state(bucket);
      const start = o.now(); // time queued behind earlier waiters counts as waiting too
      const turn = s.queue.then(() => waitTurn(s, start, signal));
      s.queue = turn.catch(() => undefined); // an aborted waiter must not block the ones behind it
      return turn;
    },
    pause(bucket, untilMs) {
      const s = state(bucket);
      s.pausedUntil = Math.max(s.pausedUntil, untilMs);
    },
    holdWindowSince(agoMs) {
      if (!(agoMs < horizon)) return 0;
      const until = o.now() + horizon - Math.max(0, agoMs);
      for (const b of Object.keys(BUCKET_LIMITS) as BucketName[]) this.pause(b, until);
      return until - o.now();
    },
    inWindow(bucket) {
      const s = state(bucket);
      prune(s, o.now());
      return s.log.length;
    },
    pausedUntil: (bucket) => state(bucket).pausedUntil,
    addWait(bucket, ms) {
      state(bucket).waitedMs += Math.max(0, ms);
    },
    waitedMs: () => Object.fromEntries([...states].map(([b, s]) => [b, s.waitedMs])),
    activity: () => ({ lastMs, inFlight }),
  };
}
