/**
 * The request engine under every client method: bucket wait → concurrency slot → one HTTP
 * exchange → classify → retry or return. Metering (per call and per client) and the one debug
 * line per request live here, so no endpoint can forget them. So does the breaker (breaker.ts):
 * a refused credential or an API that answers nothing but failures stops every further send.
 */
import type { ReadTally } from './paginate.ts';
import type { Dispatcher } from 'undici';
import pLimit from 'p-limit';
import { FleetsyncError, type ErrorCode } from '../errors.ts';
import type { Logger } from '../log.ts';
import { accessRefusal, type EndpointGate } from './access.ts';
import type { Breaker } from './breaker.ts';
import { bucketFor, type BucketName, type BucketSet } from './buckets.ts';
import { describeTransportError, isAbort, sendHttp, type HttpResponse } from './http.ts';
import type { Redact } from './redact.ts';
import { backoffMs, fullJitterMs, pauseAfter429, rateLimitGivesUp, type RetryPolicy } from './retry.ts';

export interface RequestMeter {
  requests: number;
  retries: number;
  http429: number;
  /** What the unit's paged reads received (paginate.ts ReadTally, summed); absent: no paged read. */
  read?: ReadTally;
}

export interface CallOptions {
  signal?: AbortSignal;
  meter?: RequestMeter;
  /** A paged listing: the most records the caller holds at once (paginate.ts `maxRecords`). */
  maxRecords?: number;
}

export type QueryValue = string | number | boolean | undefined;

export interface ApiCall {
  method: 'GET' | 'POST';
  /** Path relative to the base URL, already percent-encoded (`/vehicles/ab%20123/odometer`). */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The endpoint's template for messages and the ledger: `GET /vehicles/{registration}/odometer`. */
  endpoint: string;
  /** Answer null instead of throwing on 404 (single-object reads). */
  notFoundIsNull?: boolean;
}

export interface ApiResult {
  json: unknown;
  text: string;
}

export interface ClientStats {
  requests: number;
  retries: number;
  http429ByBucket: Record<string, number>;
  requestsByBucket: Record<string, number>;
  /** Requests sent again (after a 429, a 5xx or a network error) per bucket; part of requestsByBucket. */
  retriesByBucket: Record<string, number>;
  waitedMsByBucket: Record<string, number>;
}

export interface RequesterOptions {
  baseUrl: string;
  authorization: string;
  dispatcher: Dispatcher;
  buckets: BucketSet;
  policy: RetryPolicy;
  concurrency: number;
  timeoutMs: number;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  log: Logger;
  redact: Redact;
  breaker: Breaker;
  /** Endpoints refused or not yet known to answer (access.ts). */
  gate: EndpointGate;
}

export interface Requester {
  send(call: ApiCall, o?: CallOptions): Promise<ApiResult | null>;
  stats(): ClientStats;
}

/** The caller's signal and the breaker's, for waits (never for a request on the wire). */
function waitSignal(caller: AbortSignal | undefined, breaker: Breaker): AbortSignal {
  return caller ? AbortSignal.any([caller, breaker.signal()]) : breaker.signal();
}

/** Brackets stay literal so `filter[is_toll]` reads as such in logs; everything else is encoded. */
const enc = (s: string) => encodeURIComponent(s).replace(/%5B/gi, '[').replace(/%5D/gi, ']');

export function queryString(q: Record<string, QueryValue> | undefined): string {
  if (!q) return '';
  const parts = Object.entries(q)
    .filter((e): e is [string, string | number | boolean] => e[1] !== undefined)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The API's error message from `{"error":{"message"}}` (or `{"message"}`), else a body excerpt. */
export function apiErrorMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown } | null;
    const m = j?.error?.message ?? j?.message;
    if (typeof m === 'string') return m.slice(0, 200);
  } catch {
    // not JSON: fall through to the excerpt
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 120) || '(empty body)';
}

export function createRequester(o: RequesterOptions): Requester {
  const url = new URL(o.baseUrl);
  const origin = url.origin;
  const basePath = url.pathname.replace(/\/+$/, '');
  const limit = pLimit(o.concurrency);
  const totals = { requests: 0, retries: 0 };
  const http429ByBucket: Record<string, number> = {};
  const requestsByBucket: Record<string, number> = {};
  const retriesByBucket: Record<string, number> = {};
  /** Answers other than 429 per bucket: a request keeps retrying 429s while its bucket is served. */
  const servedByBucket: Record<string, number> = {};
  let warnedHeaders = false;
  const { breaker } = o;

  /** A wait that ends early, with the stopping error, when the breaker stops the client. */
  async function wait<T>(p: (s: AbortSignal) => Promise<T>, caller?: AbortSignal): Promise<T> {
    breaker.check();
    try {
      return await p(waitSignal(caller, breaker));
    } catch (e) {
      if (!caller?.aborted) breaker.check();
      throw e;
    }
  }

  const fail = (code: ErrorCode, msg: string, cause: unknown, details: Record<string, unknown>) =>
    new FleetsyncError(code, o.redact(msg), { cause, details });

  /** A request passes the endpoint gate (access.ts) first: one probe for an endpoint not known to answer. */
  async function send(call: ApiCall, co: CallOptions = {}): Promise<ApiResult | null> {
    const probe = await o.gate.enter(call.endpoint, () => waitSignal(co.signal, breaker));
    try {
      return await exchange(call, co);
    } finally {
      o.gate.leave(call.endpoint, probe);
    }
  }

  async function exchange(call: ApiCall, co: CallOptions): Promise<ApiResult | null> {
    const bucket: BucketName = bucketFor(call.method, call.path);
    const path = basePath + call.path + queryString(call.query);
    const { signal, meter } = co;
    let attempts = 0;
    let failures = 0;
    let n429 = 0;
    let servedAtLast429 = 0;
    const details = () => ({ endpoint: call.endpoint, bucket, attempts });

    const retryAfterFailure = async (reason: string, code: ErrorCode, cause: unknown, sample?: string) => {
      breaker.check(); // this failure may have opened the breaker (judged in the slot)
      failures++;
      if (failures > o.policy.maxRetries) {
        const extra = sample === undefined ? {} : { sample: o.redact(sample.slice(0, 300)) };
        throw fail(code, `${call.endpoint}: ${reason} (gave up after ${attempts} attempts)`, cause, {
          ...details(),
          ...extra,
        });
      }
      const delay = backoffMs(failures - 1, o.policy.baseBackoffMs, o.policy.maxBackoffMs, o.random);
      o.log.debug('api retry', {
        endpoint: call.endpoint,
        bucket,
        attempt: attempts,
        reason,
        wait_ms: delay,
      });
      await wait((s) => o.sleep(delay, s), signal);
    };

    /**
     * The breaker's view of an answer, taken before the concurrency slot is freed, so that no
     * request queued for the slot is sent after a refusal or the failure that opens the breaker.
     * A 403 refuses one endpoint (access.ts), unless nothing at all has answered (breaker.ts).
     */
    const judge = (r: HttpResponse): HttpResponse => {
      if (r.status === 403) {
        breaker.answered();
        breaker.forbidden(call.endpoint);
      } else if (r.status === 401)
        // The credentials are refused: no further request (repeated refusals can lock the account).
        breaker.refused(
          fail(
            'E_AUTH',
            `HTTP ${r.status} on ${call.endpoint}: ${apiErrorMessage(r.text)} (check FLEET_USERNAME/FLEET_PASSWORD and the region)`,
            undefined,
            { ...details(), status: r.status },
          ),
        );
      else if (r.status >= 500 || r.status === 408)
        breaker.failed(`${call.endpoint}: HTTP ${r.status} ${o.redact(apiErrorMessage(r.text))}`, o.now());
      else {
        breaker.answered();
        if (r.status >= 200 && r.status < 300) breaker.succeeded();
      }
      return r;
    };

    for (;;) {
      signal?.throwIfAborted();
      breaker.check();
      if (attempts > 0) {
        totals.retries++;
        retriesByBucket[bucket] = (retriesByBucket[bucket] ?? 0) + 1;
        if (meter) meter.retries++;
      }
      const ticket = await wait((s) => o.buckets.acquire(bucket, s), signal);
      const t0 = o.now();
      let res: HttpResponse | undefined;
      let transportError: unknown;
      try {
        res = await limit(async () => {
          breaker.check(); // stopped while this request waited for a slot: it is never sent
          ticket.sent();
          try {
            return judge(
              await sendHttp(o.dispatcher, origin, o.authorization, {
                method: call.method,
                path,
                body: call.body,
                signal,
                timeoutMs: o.timeoutMs,
              }),
            );
          } catch (e) {
            if (!isAbort(e, signal))
              breaker.failed(
                `${call.endpoint}: ${o.redact(describeTransportError(e, o.timeoutMs))}`,
                o.now(),
              );
            throw e;
          } finally {
            ticket.answered();
          }
        });
      } catch (e) {
        if (isAbort(e, signal) || e === breaker.stopped()) throw e;
        transportError = e ?? new Error('unknown transport failure');
      }
      attempts++;
      totals.requests++;
      requestsByBucket[bucket] = (requestsByBucket[bucket] ?? 0) + 1;
      if (meter) meter.requests++;
      o.log.debug('api request', {
        method: call.method,
        path: call.path,
        status: res?.status ?? 'error',
        ms: o.now() - t0,
        bucket,
        attempt: attempts,
      });

      if (!res) {
        await retryAfterFailure(
          describeTransportError(transportError, o.timeoutMs),
          'E_NETWORK',
          transportError,
        );
        continue;
      }
      const status = res.status;
      if (status !== 429) servedByBucket[bucket] = (servedByBucket[bucket] ?? 0) + 1;
      if (status === 429) {
        n429++;
        http429ByBucket[bucket] = (http429ByBucket[bucket] ?? 0) + 1;
        if (meter) meter.http429++;
        const served = servedByBucket[bucket] ?? 0;
        const bucketServed = n429 > 1 && served > servedAtLast429;
        servedAtLast429 = served;
        if (rateLimitGivesUp(n429, bucketServed, o.policy))
          throw fail(
            'E_RATE_LIMIT',
            `${call.endpoint}: still rate limited after ${n429} answers of 429 (bucket ${bucket})`,
            new Error(o.redact(apiErrorMessage(res.text))),
            { ...details(), status },
          );
        const d = pauseAfter429(res.headers, n429, o.now(), o.policy, o.random);
        if (d.anomaly && !warnedHeaders) {
          warnedHeaders = true; // once per client: a misbehaving server must not flood the log
          o.log.warn('api rate-limit headers unusable', { bucket, anomaly: d.anomaly });
        }
        o.buckets.pause(bucket, o.now() + d.delayMs);
        // Full jitter on top of the bucket's pause: the requests a 429 sent back are spread over
        // [0, backoff] after it, not released in lock-step to draw the same 429s again.
        const jitter = fullJitterMs(n429 - 1, o.policy.base429Ms, o.policy.maxPauseMs / 3, o.random);
        const delay = Math.min(o.policy.maxPauseMs, d.delayMs + jitter);
        o.log.debug('api 429: bucket paused', {
          endpoint: call.endpoint,
          bucket,
          pause_ms: d.delayMs,
          retry_ms: delay,
          n429,
        });
        const slept = o.now();
        await wait((s) => o.sleep(delay, s), signal);
        o.buckets.addWait(bucket, o.now() - slept);
        continue;
      }
      if (status === 401 || status === 403) breaker.check(); // judge() stopped the client
      const refusal = accessRefusal(
        call.endpoint,
        status,
        () => o.redact(apiErrorMessage(res.text)),
        details,
      );
      if (refusal) {
        o.gate.refuse(call.endpoint, refusal);
        throw refusal;
      }
      if (status < 500 && status !== 408) o.gate.open(call.endpoint, status >= 200 && status < 300);
      if (status === 404 && call.notFoundIsNull) return null;
      if (status >= 500 || status === 408) {
        const reason = `HTTP ${status} ${apiErrorMessage(res.text)}`;
        await retryAfterFailure(reason, 'E_HTTP', new Error(o.redact(reason)));
        continue;
      }
      if (status < 200 || status >= 300)
        throw fail('E_HTTP', `${call.endpoint}: HTTP ${status} ${apiErrorMessage(res.text)}`, undefined, {
          ...details(),
          status,
        });
      if (res.text.trim() === '') return { json: null, text: '' };
      try {
        return { json: JSON.parse(res.text) as unknown, text: res.text };
      } catch (e) {
        await retryAfterFailure('body is not JSON (truncated?)', 'E_PAYLOAD', e, res.text);
      }
    }
  }

  return {
    send,
    stats: () => ({
      requests: totals.requests,
      retries: totals.retries,
      http429ByBucket: { ...http429ByBucket },
      requestsByBucket: { ...requestsByBucket },
      retriesByBucket: { ...retriesByBucket },
      waitedMsByBucket: o.buckets.waitedMs(),
    }),
  };
}
