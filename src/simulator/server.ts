/**
 * The simulated Fleet API over HTTP (node:http): Basic auth (main account and one subuser sharing
 * the account's limits), per-bucket sliding-window rate limits on an injected clock, fault
 * injection, and the routes serving a Fleet as of `now()`: those the sync reads in
 * src/simulator/routes/, the spec's others (commands, status, events, EV, delivery, vision) in
 * src/simulator/spec/.
 *
 * Order of a request: auth (401 never counts) → bucket → injected fault (never counts in the
 * limiter) → rate limit (a rejected request does not count) → route → field fault → body faults.
 * `GET /__sim/stats` (no auth) shows the counters for humans. The release notes
 * (`/changelog.json`, `/changelog/records.json`) are served beside `/rest`, without auth or
 * rate limit, from `releases` (default DEFAULT_RELEASES; `setReleases` publishes a new list).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../log.ts';
import { FaultInjector, type FaultKind, type FaultOptions, type PayloadKind } from './faults.ts';
import { findVehicle } from './lookup.ts';
import { applyPageFault, pageRequest, pagedBody } from './page-faults.ts';
import type { Fleet } from './model.ts';
import { BUCKET_NAMES, DEFAULT_WINDOW_MS, RateLimiter, bucketFor, type BucketName } from './ratelimit.ts';
import { ApiError, type Reply, type Route } from './routes/common.ts';
import { activityRoutes } from './routes/activity.ts';
import { evConsumptionRoutes } from './routes/ev.ts';
import { carpoolRoutes } from './routes/carpool.ts';
import { fuelRoutes } from './routes/fuel.ts';
import { geofenceRoutes } from './routes/geofences.ts';
import { tripRoutes } from './routes/trips.ts';
import { vehicleRoutes } from './routes/vehicles.ts';
import { DEFAULT_RELEASES, type Release } from './changelog.ts';
import { serveChangelog, publishedAt, type Published } from './routes/changelog.ts';
import { SPEC_ROUTES, createSpecState, deliveryWriteForbidden, type SpecState } from './spec/index.ts';

export interface SimulatorCredentials {
  username: string;
  mainPassword: string;
  subPassword: string;
}

export const DEFAULT_CREDENTIALS: SimulatorCredentials = {
  username: 'demo',
  mainPassword: 'demo-main',
  subPassword: 'demo-sub',
};

/**
 * What the account may read (switchable per run with `setAccess`): modules it does not have (a
 * collection endpoint answering 404 to everyone) and a restricted subuser — the vehicles it sees
 * (its listings and per-vehicle paths; another vehicle's paths answer 404) and the
 * main-account-only reads it is refused (403), as the spec describes. Endpoints are written as
 * the API docs' templates: `GET /vehicles/activity`, `GET /drivers`.
 */
export interface SimulatorAccess {
  missing?: readonly string[];
  subuser?: { vehicleIds?: readonly number[]; forbidden?: readonly string[] };
}

/** A subuser restricted as the issue describes: 403 on GET /drivers and GET /carpool/vehicles. */
export const MAIN_ACCOUNT_ONLY_READS = ['GET /drivers', 'GET /carpool/vehicles'] as const;

/** The fleet as a restricted subuser sees it: only its vehicles, their bookings and carpool vehicles. */
export function fleetSeenBy(fleet: Fleet, vehicleIds: readonly number[]): Fleet {
  const ids = new Set(vehicleIds);
  const vehicles = fleet.vehicles.filter((v) => ids.has(v.vehicle_id));
  const regs = new Set(vehicles.map((v) => v.registration));
  return {
    ...fleet,
    vehicles,
    bookings: fleet.bookings.filter((b) => regs.has(b.registration)),
    carpoolVehicles: fleet.carpoolVehicles.filter((v) => regs.has(v.registration)),
  };
}

export interface SimulatorOptions {
  fleet: Fleet;
  port?: number;
  host?: string;
  now?: () => number;
  windowMs?: number;
  limits?: Partial<Record<BucketName, number>>;
  enforceLimits?: boolean;
  credentials?: SimulatorCredentials;
  faults?: FaultOptions;
  log?: Logger;
  /** Published release notes (default DEFAULT_RELEASES). */
  releases?: readonly Release[];
  /** Sends the bulk-upload webhook callbacks (default: fetch). */
  postWebhook?: SpecState['postWebhook'];
  /**
   * The zone the account is set to at the API, when not the fleet's: request bounds are read and
   * response timestamps written in it (their offsets follow it); the data stay the same instants.
   */
  timezone?: string;
  /** Modules missing and the subuser's restrictions (default: everything readable by both). */
  access?: SimulatorAccess;
}

export interface SimulatorStats {
  total: number;
  unauthorized: number;
  /** Authenticated requests per bucket (including rejected and fault-injected ones). */
  requests: Record<BucketName, number>;
  /** Genuine 429s from the limiter, per bucket. */
  rateLimited: Record<BucketName, number>;
  /** Injected faults per kind (an injected 429 counts here, never in rateLimited). */
  faults: Record<FaultKind, number>;
  /** Authenticated requests per endpoint template (`GET /vehicles/activity`), whatever the answer. */
  endpoints: Record<string, number>;
}

export interface SimulatorHandle {
  url: string;
  baseUrl: string;
  port: number;
  stats(): SimulatorStats;
  resetStats(): void;
  setFaults(f: FaultOptions): void;
  /** What the account may read from now on (modules missing, the subuser's restrictions). */
  setAccess(a: SimulatorAccess): void;
  /** Publishes a new release list (the changelog files change ETag and Last-Modified). */
  setReleases(releases: readonly Release[]): void;
  releases(): readonly Release[];
  /** A driver tag read in the vehicle at `atMs` (default now); ignored unless ignition is ON then. */
  driverTagRead(registration: string, driverId: string, atMs?: number): void;
  /** A self-assignment in the driver mobile app at `atMs` (default now); ends at the next ignition OFF. */
  appSelfAssign(registration: string, driverId: string, atMs?: number): void;
  /** Resolves when background work (bulk uploads, webhook callbacks) has finished. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** The routes the sync reads (src/api/client.ts): their answers are what fleetsync stores. */
export const SYNC_ROUTES: readonly Route[] = [
  ...vehicleRoutes,
  ...tripRoutes,
  ...fuelRoutes,
  ...geofenceRoutes,
  ...carpoolRoutes,
  ...activityRoutes,
  ...evConsumptionRoutes,
];

/** Every route, matched in this order: the sync's, then the spec's others (spec/). */
export const ALL_ROUTES: readonly Route[] = [...SYNC_ROUTES, ...SPEC_ROUTES];

function emptyStats(): SimulatorStats {
  const perBucket = () => Object.fromEntries(BUCKET_NAMES.map((b) => [b, 0])) as Record<BucketName, number>;
  return {
    total: 0,
    unauthorized: 0,
    requests: perBucket(),
    rateLimited: perBucket(),
    faults: { rate_limit: 0, server_error: 0, truncate: 0, reset: 0, hang: 0, non_json: 0 },
    endpoints: {},
  };
}

/** Matches a raw path (under /rest) to a route; params are percent-decoded. */
function match(method: string, rawPath: string): { route: Route; params: Record<string, string> } | null {
  const segs = rawPath.split('/').filter((s) => s !== '');
  for (const route of ALL_ROUTES) {
    if (route.method !== method) continue;
    const pat = route.path.split('/').filter((s) => s !== '');
    if (pat.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pat.length && ok; i++) {
      const p = pat[i]!;
      const s = segs[i]!;
      if (p.startsWith('{')) {
        try {
          params[p.slice(1, -1)] = decodeURIComponent(s);
        } catch {
          ok = false; // malformed percent-encoding: no route matches
        }
      } else ok = p === s;
    }
    if (ok) return { route, params };
  }
  return null;
}

type Who = 'main' | 'sub' | null;

function authenticate(header: string | undefined, c: SimulatorCredentials): Who {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0 || text.slice(0, i) !== c.username) return null;
  const pw = text.slice(i + 1);
  return pw === c.mainPassword ? 'main' : pw === c.subPassword ? 'sub' : null;
}

const errorBody = (status: number, message: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  error: { code: status, message },
});

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function mangleData(body: unknown, kind: PayloadKind, faults: FaultInjector): unknown {
  if (!faults.changesPayloads || typeof body !== 'object' || body === null || !('data' in body)) return body;
  const data = (body as { data: unknown }).data;
  const one = (x: unknown) =>
    typeof x === 'object' && x !== null && !Array.isArray(x)
      ? faults.mangle(kind, x as Record<string, unknown>)
      : x;
  return { ...body, data: Array.isArray(data) ? data.map(one) : one(data) };
}

export async function startSimulator(opts: SimulatorOptions): Promise<SimulatorHandle> {
  const fleet: Fleet = opts.timezone ? { ...opts.fleet, timezone: opts.timezone } : opts.fleet;
  const now = opts.now ?? Date.now;
  const creds = opts.credentials ?? DEFAULT_CREDENTIALS;
  const log =
    opts.log ?? createLogger({ level: 'warn', secrets: [creds.mainPassword, creds.subPassword], now });
  const limiter = new RateLimiter(opts.windowMs ?? DEFAULT_WINDOW_MS, opts.limits ?? {});
  const enforce = opts.enforceLimits ?? true;
  const faults = new FaultInjector(opts.faults ?? {});
  let stats = emptyStats();
  const hanging = new Set<http.ServerResponse>();
  const spec = createSpecState({
    webhookKey: creds.mainPassword,
    ...(opts.postWebhook ? { postWebhook: opts.postWebhook } : {}),
  });
  const initialReleases = opts.releases ?? DEFAULT_RELEASES;
  let published: Published = {
    releases: initialReleases,
    modifiedMs: publishedAt(initialReleases, null, null),
  };
  let origin = '';
  let access: SimulatorAccess = opts.access ?? {};
  let subFleet: Fleet = fleet;
  const setAccess = (a: SimulatorAccess) => {
    access = a;
    const ids = a.subuser?.vehicleIds;
    subFleet = ids ? fleetSeenBy(fleet, ids) : fleet;
  };
  setAccess(access);

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://simulator');
    const rawBody = await readBody(req);
    if (url.pathname === '/__sim/stats' && method === 'GET') return send(res, 200, stats);
    if (serveChangelog(req, res, url.pathname, published, origin)) return;
    if (!url.pathname.startsWith('/rest/')) return send(res, 404, errorBody(404, 'Not found.'));
    const path = url.pathname.slice(5);
    const who = authenticate(req.headers.authorization, creds);
    if (!who) {
      stats.unauthorized++;
      stats.total++;
      return send(res, 401, errorBody(401, 'Unauthenticated: invalid or missing credentials.'), {
        'WWW-Authenticate': 'Basic realm="Fleet API"',
      });
    }
    const bucket = bucketFor(method, path);
    stats.total++;
    stats.requests[bucket]++;
    const found = match(method, path);
    const endpoint = found ? `${method} ${found.route.path}` : `${method} ${path}`;
    stats.endpoints[endpoint] = (stats.endpoints[endpoint] ?? 0) + 1;

    const fault = faults.next(bucket);
    const latency = faults.options.latencyMs ?? 0;
    if (latency > 0) await new Promise((r) => setTimeout(r, latency));
    if (fault) stats.faults[fault]++;
    if (fault === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if (fault === 'server_error') {
      const status = faults.options.serverErrorStatus ?? 503;
      return send(res, status, errorBody(status, 'Service temporarily unavailable (injected).'));
    }
    if (fault === 'rate_limit')
      return send(res, 429, errorBody(429, 'Too Many Requests.'), faults.retryHeaders(now()));

    const at = now();
    if (enforce) {
      const d = limiter.take(bucket, at);
      if (!d.ok) {
        stats.rateLimited[bucket]++;
        return send(res, 429, errorBody(429, `Too Many Requests: limit of ${d.limit} per window reached.`), {
          'X-RateLimit-Retry-At': String(d.retryAtS),
          'X-RateLimit-Retry-After-Seconds': String(d.retryAfterS),
        });
      }
    }

    let reply: Reply;
    try {
      if (deliveryWriteForbidden(method, path, who === 'sub'))
        throw new ApiError(403, 'Forbidden: delivery writes need the main account credentials.');
      if (!found) throw new ApiError(404, `No route for ${method} ${path}.`);
      if (access.missing?.includes(endpoint)) throw new ApiError(404, `No route for ${method} ${path}.`);
      if (who === 'sub' && access.subuser?.forbidden?.includes(endpoint))
        throw new ApiError(403, 'Forbidden: this read needs the main account credentials.');
      let body: unknown;
      if (rawBody.trim() !== '') {
        try {
          body = JSON.parse(rawBody);
        } catch (e) {
          throw new ApiError(400, `The request body is not valid JSON (${(e as Error).message}).`);
        }
      }
      const { pageFault, pageLimit } = faults.options;
      /** The route's answer to this request, or to its page `page`. */
      const answer = (page?: number) =>
        found.route.handler({
          fleet: who === 'sub' ? subFleet : fleet,
          now: at,
          params: found.params,
          ...pageRequest(method, url.searchParams, body, page, pageLimit),
          isSubuser: who === 'sub',
          spec,
        } as Parameters<Route['handler']>[0]);
      reply = answer();
      const paged =
        pageFault && (!pageFault.path || pageFault.path === found.route.path) && pagedBody(reply.body);
      if (pageFault && paged) {
        const healthy = (n: number) => {
          try {
            return pagedBody(answer(n).body);
          } catch {
            return null;
          }
        };
        reply = { ...reply, body: applyPageFault(pageFault, paged, healthy) };
      }
    } catch (e) {
      if (!(e instanceof ApiError)) {
        log.error('simulator route failed', { method, path, error: (e as Error).message });
        return send(res, 500, errorBody(500, 'Internal server error.'));
      }
      return send(res, e.status, errorBody(e.status, e.message, e.extra));
    }
    const payload = reply.kind ? mangleData(reply.body, reply.kind, faults) : reply.body;
    if (fault === 'truncate') {
      const text = JSON.stringify(payload);
      const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      res.writeHead(reply.status ?? 200, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(cut)),
      });
      res.end(cut);
      return;
    }
    if (fault === 'non_json') {
      const html =
        '<html><head><title>502 Bad Gateway</title></head><body>upstream unavailable</body></html>';
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(html)) });
      res.end(html);
      return;
    }
    log.debug('simulator request', { method, path, bucket, status: reply.status ?? 200 });
    send(res, reply.status ?? 200, payload, reply.headers);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log.error('simulator request failed', { error: (e as Error).message });
      if (!res.headersSent) send(res, 500, errorBody(500, 'Internal server error.'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  origin = url;
  const vehicleOf = (registration: string) => {
    const v = findVehicle(fleet, registration);
    if (!v) throw new RangeError(`no vehicle ${JSON.stringify(registration)} in the simulated fleet`);
    return v;
  };
  return {
    url,
    baseUrl: `${url}/rest`,
    port,
    stats: () => structuredClone(stats),
    resetStats: () => {
      stats = emptyStats();
    },
    setFaults: (f) => faults.set(f),
    setAccess,
    setReleases: (releases) => {
      const copy = [...releases];
      published = { releases: copy, modifiedMs: publishedAt(copy, now(), published.modifiedMs) };
    },
    releases: () => published.releases,
    driverTagRead: (registration, driverId, atMs) => {
      spec.tagReads.push({
        vehicle_id: vehicleOf(registration).vehicle_id,
        driver_id: driverId,
        at_ms: atMs ?? now(),
      });
    },
    appSelfAssign: (registration, driverId, atMs) => {
      spec.appAssignments.push({
        vehicle_id: vehicleOf(registration).vehicle_id,
        driver_id: driverId,
        at_ms: atMs ?? now(),
      });
    },
    settle: async () => {
      while (spec.pending.size > 0) await Promise.allSettled([...spec.pending]);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const res of hanging) res.destroy();
        hanging.clear();
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
