/**
 * Retry policy, written out (after undici's retry-handler): which failures are retried, how long
 * to wait, and how a 429's headers become a bucket-wide pause.
 *
 * Why our own loop and not undici's RetryAgent: a 429 must pause the *whole bucket* (every queued
 * request of that endpoint family, not just the one that got it), every retry must wait for its
 * bucket like a first send (a retry is one more arrival the server counts), and the planner and
 * the ledger need per-request metering. RetryAgent retries one request in isolation, below the
 * buckets, so it can do none of that.
 */
export interface RetryPolicy {
  /** Retries of 5xx, resets, timeouts and unreadable bodies (per request). */
  maxRetries: number;
  /**
   * Retries after a 429 (per request) while its bucket serves nobody in between; each waits for
   * the bucket pause plus full jitter. While other requests of the bucket are answered, a
   * request goes on up to RATE_LIMIT_HARD_FACTOR times this (see `rateLimitGivesUp`).
   */
  maxRateLimitRetries: number;
  /** First backoff of a failure retry; doubles per attempt up to `maxBackoffMs`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** First backoff of a 429 whose headers are unusable; doubles per repeat up to one window. */
  base429Ms: number;
  /** The shortest pause after a 429 (a server saying "retry now" is not taken literally). */
  minPauseMs: number;
  /** The longest pause a 429 can impose, whatever its headers say. */
  maxPauseMs: number;
}

export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_MAX_RATE_LIMIT_RETRIES = 8;
/** A request whose bucket is being served still gives up after this many times the 429 budget. */
export const RATE_LIMIT_HARD_FACTOR = 4;

export function defaultRetryPolicy(windowMs: number, maxRetries = DEFAULT_MAX_RETRIES): RetryPolicy {
  return {
    maxRetries,
    maxRateLimitRetries: DEFAULT_MAX_RATE_LIMIT_RETRIES,
    baseBackoffMs: 500, // 0.5, 1, 2, 4 s (each ×0.5–1 jitter): rides out a restart or a blip
    maxBackoffMs: 30_000,
    // 429 waits scale with the window (a simulator may run 1 s windows); at 60 s: 2, 4, 8 … s
    // capped at one window (the server frees a slot within a window), never under 1 s,
    // never over three windows whatever the headers say (days, say).
    base429Ms: windowMs / 30,
    minPauseMs: windowMs / 60,
    maxPauseMs: 3 * windowMs,
  };
}

/** Exponential backoff with "equal jitter": between half and all of `base × 2^attempt` (capped). */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const d = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(d / 2 + (random() * d) / 2);
}

/** "Full jitter": anywhere in [0, base × 2^attempt] (capped), so retries released together spread out. */
export function fullJitterMs(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  return Math.round(random() * Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt)));
}

/**
 * After its `n429`th 429, does a request give up? When the budget is spent and its bucket served
 * no other request since its previous 429 (the server refuses everything), or at
 * RATE_LIMIT_HARD_FACTOR times the budget whatever happened. A server that answers every Nth
 * request with 429 thus never fails a request: the others are served in between.
 */
export function rateLimitGivesUp(n429: number, bucketServed: boolean, policy: RetryPolicy): boolean {
  const budget = policy.maxRateLimitRetries;
  return n429 > budget && (!bucketServed || n429 > RATE_LIMIT_HARD_FACTOR * budget);
}

export type HeaderValue = string | string[] | undefined;

function single(v: HeaderValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A header as a finite number, or null (missing, empty, non-numeric). */
function numeric(v: HeaderValue): number | null {
  const s = single(v)?.trim();
  if (!s || !/^-?\d+(\.\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

export interface PauseDecision {
  /** How long the bucket pauses from now, within [minPauseMs, maxPauseMs]. */
  delayMs: number;
  /** Why the headers were not used as given (for one warning), or null when they were fine. */
  anomaly: string | null;
}

/**
 * Turns a 429's `X-RateLimit-Retry-At` (epoch seconds) and `X-RateLimit-Retry-After-Seconds` into
 * a pause: the later of the two usable values; zero, negative, past, non-numeric or missing values
 * fall back to backoff; absurd values are capped at `maxPauseMs`. From the second consecutive 429
 * of a request on, the pause is at least the backoff for that repeat, so a server that keeps
 * saying "retry now" cannot drive a tight loop.
 */
export function pauseAfter429(
  headers: Record<string, HeaderValue>,
  nth429: number,
  nowMs: number,
  policy: RetryPolicy,
  random: () => number,
): PauseDecision {
  const at = numeric(headers['x-ratelimit-retry-at']);
  const after = numeric(headers['x-ratelimit-retry-after-seconds']);
  const candidates: number[] = [];
  const problems: string[] = [];
  if (at !== null) {
    // Epoch seconds per the docs; a value that only makes sense as milliseconds is read as such.
    const atMs = at > 1e11 ? at : at * 1000;
    if (atMs > nowMs) candidates.push(atMs - nowMs);
    else problems.push('Retry-At not in the future');
  } else if (single(headers['x-ratelimit-retry-at']) !== undefined) problems.push('Retry-At not numeric');
  if (after !== null) {
    if (after > 0) candidates.push(after * 1000);
    else problems.push('Retry-After-Seconds not positive');
  } else if (single(headers['x-ratelimit-retry-after-seconds']) !== undefined)
    problems.push('Retry-After-Seconds not numeric');
  if (at === null && after === null && problems.length === 0) problems.push('no retry headers');

  const fallback = backoffMs(nth429 - 1, policy.base429Ms, policy.maxPauseMs / 3, random);
  let delay = candidates.length ? Math.max(...candidates) : fallback;
  if (candidates.length === 0) problems.push('using backoff');
  if (nth429 > 1) delay = Math.max(delay, fallback);
  if (delay > policy.maxPauseMs) {
    problems.push(`asked for ${Math.round(delay / 1000)} s, capped`);
    delay = policy.maxPauseMs;
  }
  delay = Math.max(policy.minPauseMs, delay);
  return { delayMs: Math.round(delay), anomaly: problems.length ? problems.join('; ') : null };
}
