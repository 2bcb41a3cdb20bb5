/**
 * Test helpers for the API client: a fake clock whose `sleep` advances time instantly (or holds
 * sleepers until released), and a scripted `node:http` server on port 0 that records every
 * arrival with the fake clock's time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { createFleetClient, type FleetClient, type FleetClientOptions } from '../../src/api/client.ts';
import type { FleetsyncError } from '../../src/errors.ts';
import { memoryLogger } from '../../src/log.ts';

export interface FakeClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Every sleep asked for, in ms. */
  sleeps: number[];
  /** Hold sleepers (time stands still) until `release()`. */
  hold(): void;
  release(): void;
  pending(): number;
}

/** A sleeper waiting in a queue: until `at`, in the order it came (`seq`) among equal ends. */
export interface Sleeper {
  at: number;
  seq: number;
  wake: () => void;
}

/**
 * The sleepers of a clock that moves time itself (fakeClock, instantSleep in synced.ts): `sleep`
 * queues one until `at` and calls `kick` (the clock's pump); an abort takes it out of the queue and
 * rejects with the signal's reason. `sorted()`: the queue by end, then by arrival.
 */
export function sleeperQueue() {
  const queue: Sleeper[] = [];
  let seq = 0;
  return {
    queue,
    sorted: () => queue.sort((a, b) => a.at - b.at || a.seq - b.seq),
    sleep(at: number, signal: AbortSignal | undefined, kick: () => void): Promise<void> {
      signal?.throwIfAborted();
      return new Promise<void>((resolve, reject) => {
        const entry: Sleeper = {
          at,
          seq: seq++,
          wake: () => {
            signal?.removeEventListener('abort', abort);
            resolve();
          },
        };
        const abort = () => {
          const i = queue.indexOf(entry);
          if (i >= 0) queue.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', abort, { once: true });
        queue.push(entry);
        kick();
      });
    },
  };
}

/**
 * A discrete-event clock: `sleep` queues the sleeper; when nothing is in flight (`busy() === 0`)
 * and the clock is not held, time jumps to the earliest sleeper's wake-up and wakes it alone.
 * So time never moves while a request is on the wire, and a test of minutes runs in milliseconds.
 */
export function fakeClock(
  startMs = Date.parse('2026-03-02T00:00:00Z'),
  busy: () => number = () => 0,
): FakeClock {
  let t = startMs;
  let held = false;
  let scheduled = false;
  const sleeps: number[] = [];
  const sleepers = sleeperQueue();
  const queue = sleepers.queue;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  };
  function pump() {
    scheduled = false;
    if (held || queue.length === 0) return;
    if (busy() > 0) {
      setTimeout(schedule, 1);
      return;
    }
    const s = sleepers.sorted().shift()!;
    t = Math.max(t, s.at);
    s.wake();
    if (queue.length) schedule();
  }
  return {
    now: () => t,
    sleeps,
    sleep(ms, signal) {
      signal?.throwIfAborted();
      sleeps.push(ms);
      return sleepers.sleep(t + Math.max(0, ms), signal, schedule);
    },
    hold: () => void (held = true),
    release() {
      held = false;
      schedule();
    },
    pending: () => queue.length,
  };
}

/** A real keep-alive Agent whose in-flight exchanges are counted, for `fakeClock(…, busy)`. */
export function trackedAgent(): { dispatcher: Dispatcher; busy: () => number; close: () => Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 1000 });
  let inFlight = 0;
  const dispatcher = {
    async request(opts: Dispatcher.RequestOptions) {
      inFlight++;
      try {
        const r = await agent.request(opts);
        const text = await r.body.text();
        return { ...r, body: { text: async () => text } };
      } finally {
        inFlight--;
      }
    },
    close: () => agent.close(),
  } as unknown as Dispatcher;
  return { dispatcher, busy: () => inFlight, close: () => agent.close() };
}

export interface Seen {
  method: string;
  /** Raw request target as sent (`/rest/vehicles/ab%20123/odometer?...`). */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  t: number;
}

export type Handler = (req: Seen, res: ServerResponse, n: number) => void | Promise<void>;

export interface TestServer {
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** A server whose handler gets each request (with its 1-based arrival number) and answers it. */
export async function startServer(handler: Handler, now: () => number = Date.now): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        t: now(),
      };
      seen.push(s);
      Promise.resolve(handler(s, res, seen.length)).catch((e: unknown) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/rest`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const list = (data: unknown[], meta: Record<string, unknown> = {}) => ({
  data,
  meta: {
    from: 1,
    to: data.length,
    current_page: 1,
    per_page: 500,
    last_page: 1,
    total: data.length,
    ...meta,
  },
});

export const PASSWORD = 'Zq9-very-distinctive-pw';

export interface ScriptedClient {
  srv: TestServer;
  client: FleetClient;
  clock: FakeClock;
  log: ReturnType<typeof memoryLogger>;
  close(): Promise<void>;
}

/**
 * The real client against a scripted server on a discrete-event clock (time moves only while no
 * exchange is on the wire), random fixed at 0.5, logging into memory with no secret registered
 * (the client must redact by itself).
 */
export async function scriptedClient(
  handler: Handler,
  extra: Partial<FleetClientOptions> = {},
): Promise<ScriptedClient> {
  const agent = trackedAgent();
  const clock = fakeClock(Date.parse('2026-03-02T00:00:00Z'), agent.busy);
  const log = memoryLogger('debug');
  const srv = await startServer(handler, clock.now);
  const client = createFleetClient({
    baseUrl: srv.baseUrl,
    username: 'acme',
    password: PASSWORD,
    timezone: 'UTC',
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    log,
    dispatcher: agent.dispatcher,
    ...extra,
  });
  return {
    srv,
    client,
    clock,
    log,
    async close() {
      await client.close();
      await agent.close();
      await srv.close();
    },
  };
}

/** The error a promise rejects with (null when it resolves). */
export const rejection = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as FleetsyncError,
  );
