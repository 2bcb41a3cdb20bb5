/**
 * What stops a client from sending any more requests: the API refusing the credentials (401:
 * against the real API, repeated refusals can lock the account; or 403 on FORBIDDEN_ENDPOINTS
 * different endpoints before any answered: the credentials read nothing) or a circuit breaker that
 * opens when the API has answered nothing but connection errors, timeouts or 5xx for `failures`
 * requests in a row or for `ms` milliseconds, whichever comes first. Once stopped, requests in
 * flight finish, and every wait (a backoff, a bucket, a concurrency slot) ends with the error
 * that stopped the client, so nothing new is sent. `reset()` re-arms it (each sync run starts
 * with a closed breaker).
 */
import { setMaxListeners } from 'node:events';
import { FleetsyncError } from '../errors.ts';

export interface BreakerOptions {
  /** Consecutive failed exchanges that open the breaker (FLEETSYNC_BREAKER_FAILURES). */
  failures: number;
  /** Time with nothing but failed exchanges that opens the breaker (FLEETSYNC_BREAKER_MS). */
  ms: number;
}

export interface Breaker {
  /** The error that stopped the client, or null. */
  stopped(): FleetsyncError | null;
  /** Throws the error that stopped the client, if one did. */
  check(): void;
  /** Aborted (with the stopping error as its reason) when the client stops: for waits only. */
  signal(): AbortSignal;
  /** The API answered (anything but a 5xx): the streak of failures ends. */
  answered(): void;
  /** A connection error, timeout, 5xx or unreadable body; may open the breaker. */
  failed(reason: string, nowMs: number): void;
  /** The API refused the credentials: stop at once with `e`. */
  refused(e: FleetsyncError): void;
  /** A 2xx answer: the credentials read something. */
  succeeded(): void;
  /**
   * A 403 on `endpoint` (not permitted: access.ts). Before any 2xx since the reset, 403s on
   * FORBIDDEN_ENDPOINTS different endpoints stop the client: the credentials read nothing.
   */
  forbidden(endpoint: string): void;
  reset(): void;
}

/** 403s on this many different endpoints, with no 2xx in between, mean the credentials read nothing. */
export const FORBIDDEN_ENDPOINTS = 3;

export function createBreaker(o: BreakerOptions & { origin: string }): Breaker {
  let streak = 0;
  let since = 0;
  let stop: FleetsyncError | null = null;
  let readSomething = false;
  const forbidden = new Set<string>();
  let ctl = new AbortController();
  const arm = () => {
    ctl = new AbortController();
    // Every waiting request listens on it: many listeners are expected, not a leak.
    setMaxListeners(10_000, ctl.signal);
  };
  arm();
  const halt = (e: FleetsyncError) => {
    if (stop) return;
    stop = e;
    ctl.abort(e);
  };
  return {
    stopped: () => stop,
    check() {
      if (stop) throw stop;
    },
    signal: () => ctl.signal,
    answered() {
      streak = 0;
    },
    failed(reason, nowMs) {
      if (streak === 0) since = nowMs;
      streak++;
      const lasted = nowMs - since;
      if (streak < o.failures && lasted < o.ms) return;
      const why =
        streak >= o.failures
          ? `${streak} requests in a row (FLEETSYNC_BREAKER_FAILURES=${o.failures})`
          : `${Math.round(lasted / 1000)} s (FLEETSYNC_BREAKER_MS=${o.ms})`;
      halt(
        new FleetsyncError(
          'E_API_DOWN',
          `the API at ${o.origin} answered nothing but connection errors, timeouts or 5xx for ${why}; last: ${reason}`,
          { details: { failures: streak, ms: lasted } },
        ),
      );
    },
    refused: halt,
    succeeded() {
      readSomething = true;
    },
    forbidden(endpoint) {
      forbidden.add(endpoint);
      if (readSomething || forbidden.size < FORBIDDEN_ENDPOINTS) return;
      halt(
        new FleetsyncError(
          'E_AUTH',
          `HTTP 403 on ${[...forbidden].join(', ')} and nothing answered: the API refuses these credentials every read (check FLEET_USERNAME/FLEET_PASSWORD and the region)`,
          { details: { status: 403, endpoints: [...forbidden] } },
        ),
      );
    },
    reset() {
      streak = 0;
      stop = null;
      readSomething = false;
      forbidden.clear();
      arm();
    },
  };
}
