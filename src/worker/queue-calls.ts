/**
 * Calls to the queue database (Postgres, through pg-boss) that must survive a blip: recording a
 * job's completion or failure, and the heartbeat between jobs. A connection failure is retried
 * with backoff (0.5 s doubling to 15 s) until `outageMs` has passed since the first failure; then
 * the call throws E_QUEUE_DOWN, which stops the worker with the transient exit code (75: restart
 * later; src/cli.ts). Any other error is the caller's (a bug, a changed schema): thrown at once.
 * A worker told to stop (SIGTERM) waits no longer: E_QUEUE_DOWN with details.stopped.
 */
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../time.ts';

export const FIRST_RETRY_MS = 500;
export const MAX_RETRY_MS = 15_000;

/** Postgres errors of the "connection" kind (SQLSTATE classes 08 and 57P, socket errors). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

export function isQueueConnectionError(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; depth++) {
    const err = x as { code?: unknown; message?: unknown; errors?: unknown[]; cause?: unknown };
    const code = typeof err.code === 'string' ? err.code : '';
    if (SOCKET_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
    if (typeof err.message === 'string' && /Connection terminated|connection timeout/i.test(err.message))
      return true;
    // Node's happy-eyeballs connect throws an AggregateError of per-address ECONNREFUSEDs.
    if (Array.isArray(err.errors) && err.errors.some((a) => isQueueConnectionError(a))) return true;
    x = err.cause;
  }
  return false;
}

export interface QueueCallOptions {
  /** How long the queue database may be unreachable before the worker gives up (ms). */
  outageMs: number;
  log: Logger;
  now: Clock;
  sleep?: (ms: number) => Promise<void>;
  /** The worker is stopping: no more waiting for the database (E_QUEUE_DOWN with `stopped`). */
  signal?: AbortSignal;
}

/** Waits `ms`, or less when the signal aborts. */
export const sleepFor = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * `call()`, retried while the queue database is unreachable, for at most `outageMs`. `what` names
 * the call in the log lines and the error (`complete job …`).
 */
export async function queueCall<T>(what: string, call: () => Promise<T>, o: QueueCallOptions): Promise<T> {
  const now = o.now;
  const sleep = o.sleep ?? ((ms: number) => sleepFor(ms, o.signal));
  let since: number | null = null;
  let delay = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const out = await call();
      if (since !== null)
        o.log.info('queue database back', { call: what, attempts: attempt, down_ms: now() - since });
      return out;
    } catch (e) {
      if (!isQueueConnectionError(e)) throw e;
      since ??= now();
      if (o.signal?.aborted)
        throw new FleetsyncError(
          'E_QUEUE_DOWN',
          `stopped while the queue database (FLEETSYNC_QUEUE_URL) did not answer: could not ${what}: ${describeError(e)}`,
          { cause: e, details: { stopped: true } },
        );
      const left = o.outageMs - (now() - since);
      if (left <= 0)
        throw new FleetsyncError(
          'E_QUEUE_DOWN',
          `the queue database (FLEETSYNC_QUEUE_URL) has not answered for ${Math.round((now() - since) / 1000)} s ` +
            `(FLEETSYNC_QUEUE_OUTAGE_SECONDS=${Math.round(o.outageMs / 1000)}) while trying to ${what}: ${describeError(e)}; ` +
            `the worker stops so that its service manager restarts it`,
          { cause: e },
        );
      const wait = Math.min(delay, left);
      o.log.warn('queue database unreachable, retrying', {
        call: what,
        attempt,
        retry_in_ms: wait,
        error: describeError(e),
      });
      await sleep(wait);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
