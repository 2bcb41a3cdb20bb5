/**
 * One HTTP exchange over undici 7: Basic auth, `Accept: application/json`, JSON bodies, keep-alive
 * connections, connect/headers/body timeouts. No retries here (see retry.ts and request.ts); a
 * transport failure comes back as a thrown error that `isAbort` / `describeTransportError` read.
 */
import { Agent, type Dispatcher } from 'undici';
import { DEFAULT_HTTP_TIMEOUT_MS } from '../defaults.ts';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Absolute path including the base path and the query string. */
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export const DEFAULT_TIMEOUT_MS = DEFAULT_HTTP_TIMEOUT_MS;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** The production dispatcher: a keep-alive Agent sized to the client's concurrency. */
export function createAgent(opts: { connections: number; timeoutMs: number }): Agent {
  return new Agent({
    connections: opts.connections,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connect: { timeout: Math.min(DEFAULT_CONNECT_TIMEOUT_MS, opts.timeoutMs) },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** Sends one request and reads the whole body as text (a truncated body throws here). */
export async function sendHttp(
  dispatcher: Dispatcher,
  origin: string,
  authorization: string,
  req: HttpRequest,
): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', authorization };
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  const res = await dispatcher.request({
    origin,
    path: req.path,
    method: req.method,
    headers,
    body,
    signal: req.signal,
    headersTimeout: req.timeoutMs,
    bodyTimeout: req.timeoutMs,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/** True when the caller aborted: never retried, rethrown as is. */
export function isAbort(e: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  const x = e as { name?: unknown; code?: unknown } | null;
  return x?.name === 'AbortError' || x?.code === 'UND_ERR_ABORTED' || x?.code === 'ABORT_ERR';
}

/** `CODE: message` of a transport error (undici codes: UND_ERR_SOCKET, UND_ERR_HEADERS_TIMEOUT, …). */
export function describeTransportError(e: unknown, timeoutMs?: number): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    const text = `${typeof code === 'string' ? code : e.name}: ${e.message}`;
    // Name the setting a user can change when the API was too slow to answer.
    if (timeoutMs && (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT'))
      return `no answer within ${timeoutMs} ms (FLEETSYNC_HTTP_TIMEOUT_MS); ${text}`.slice(0, 200);
    return text.slice(0, 200);
  }
  return String(e).slice(0, 200);
}
