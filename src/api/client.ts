/**
 * The Fleet API client the sync calls: one method per endpoint it needs, each taking a half-open
 * window [fromMs, toMs), returning normalized records (src/api/types.ts). Under it: request.ts
 * (buckets, concurrency, retries, metering), paginate.ts, schemas.ts, windows.ts.
 */
import { createGate, type AccessView } from './access.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  BULK_MAX_VEHICLES,
  DEFAULT_BREAKER_FAILURES,
  DEFAULT_BREAKER_MS,
  DEFAULT_CONCURRENCY,
  PAGE_LIMIT,
} from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import { createBreaker } from './breaker.ts';
import {
  createBucketSet,
  DEFAULT_SAFETY_MARGIN,
  DEFAULT_WINDOW_MS,
  limitFor,
  type BucketName,
} from './buckets.ts';
import { basicAuth, createAgent, DEFAULT_TIMEOUT_MS } from './http.ts';
import { addTally, paginate } from './paginate.ts';
import { clientRedactor, redactingLogger } from './redact.ts';
import {
  createRequester,
  type ApiCall,
  type CallOptions,
  type ClientStats,
  type QueryValue,
} from './request.ts';
import { defaultRetryPolicy, DEFAULT_MAX_RETRIES, type RetryPolicy } from './retry.ts';
import { schemasFor } from './schemas.ts';
import type {
  Booking,
  BookingRule,
  CarpoolDriver,
  CarpoolVehicle,
  Driver,
  EvConsumption,
  FuelConsumed,
  FuelFill,
  FuelLevelReading,
  FuelLevel,
  Geofence,
  GeofenceVisit,
  OdometerWindow,
  Trip,
  Vehicle,
  VehicleActivity,
} from './types.ts';
import { CAP_24_HOURS, CAP_31_DAYS, localBounds } from './windows.ts';
import { parseList, parseSingle, payloadError } from './wire.ts';

export { BUCKET_LIMITS, bucketFor, leastDurationMs, type BucketName } from './buckets.ts';
export type { CallOptions, ClientStats, RequestMeter } from './request.ts';

export { DEFAULT_CONCURRENCY } from '../defaults.ts';
/** Registrations per bulk fuel POST (the API's maximum); longer lists are split. */
export const BULK_MAX_REGISTRATIONS = BULK_MAX_VEHICLES;

export interface FleetClientOptions {
  baseUrl: string;
  username: string;
  password: string;
  timezone: string;
  /** The API's limit window, default 60_000. */
  windowMs?: number;
  limits?: Partial<Record<BucketName, number>>;
  /** Fraction of the window kept free of sends near its edge (default 0.02). */
  safetyMargin?: number;
  now: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  log?: Logger;
  /** Retries of 5xx / resets / timeouts / unreadable bodies per request (default 4). */
  maxRetries?: number;
  /** Retries after 429 per request (default 8); each waits for the bucket pause. */
  maxRateLimitRetries?: number;
  /** The circuit breaker (breaker.ts): failures in a row (default 20) or ms (default 120 000). */
  breakerFailures?: number;
  breakerMs?: number;
  /** Headers and body (idle) timeout per request, default 30 s; connect timeout min(10 s, this). */
  timeoutMs?: number;
  concurrency?: number;
  /** Given: used as is and not closed by close(). Default: a keep-alive undici Agent. */
  dispatcher?: Dispatcher;
}

export interface BucketUsage {
  limit: number;
  /** Sends this client made in the current window (including the safety margin). */
  inWindow: number;
  pausedUntilMs: number;
}

export interface FleetClient {
  listVehicles(o?: CallOptions): Promise<Vehicle[]>;
  listTrips(fromMs: number, toMs: number, registration?: string, o?: CallOptions): Promise<Trip[]>;
  getOdometer(
    registration: string,
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<OdometerWindow | null>;
  getFuelConsumed(
    registration: string,
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<FuelConsumed | null>;
  getFuelConsumedBulk(
    registrations: string[],
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<FuelConsumed[]>;
  /** POST /vehicles/ev-consumption: battery energy of up to 100 EVs per request over ≤ 24 h (10/min). */
  getEvConsumptionBulk(
    registrations: string[],
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<EvConsumption[]>;
  getFuelLevel(
    registration: string,
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<FuelLevel | null>;
  getFuelLevelBulk(
    registrations: string[],
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<FuelLevel[]>;
  listFuelFills(registration: string, fromMs: number, toMs: number, o?: CallOptions): Promise<FuelFill[]>;
  /** GET /fuel/level/history/{registration}: the tank level series, window ≤ 31 days, paginated. */
  listFuelLevelHistory(
    registration: string,
    fromMs: number,
    toMs: number,
    o?: CallOptions,
  ): Promise<FuelLevelReading[]>;
  /** GET /fuel/fills (all vehicles), window ≤ 24 h. */
  listAllFuelFills(fromMs: number, toMs: number, o?: CallOptions): Promise<FuelFill[]>;
  listGeofences(o?: CallOptions): Promise<Geofence[]>;
  listVisits(
    fromMs: number,
    toMs: number,
    filters?: { isToll?: boolean; vehicleId?: number },
    o?: CallOptions,
  ): Promise<GeofenceVisit[]>;
  listBookings(fromMs: number, toMs: number, o?: CallOptions): Promise<Booking[]>;
  getBooking(bookingId: number, o?: CallOptions): Promise<Booking | null>;
  listCarpoolVehicles(o?: CallOptions): Promise<CarpoolVehicle[]>;
  listCarpoolDrivers(o?: CallOptions): Promise<CarpoolDriver[]>;
  listBookingRules(o?: CallOptions): Promise<BookingRule[]>;
  /** GET /vehicles/activity for one local day (`YYYY-MM-DD`), all vehicles. */
  listVehicleActivity(day: string, o?: CallOptions): Promise<VehicleActivity[]>;
  /** GET /drivers: every driver of the fleet. */
  listDrivers(o?: CallOptions): Promise<Driver[]>;
  stats(): ClientStats;
  /**
   * A new run starts here: the breaker closes and a refusal of the credentials is forgotten, and
   * so are the endpoints refused (access.ts); those in `trusted` (recorded as answering) go
   * without a probe, every other endpoint's first request goes alone.
   */
  rearm(trusted?: Iterable<string>): void;
  /** The endpoints answered and refused since the last rearm (access.ts). */
  access(): AccessView;
  /** The account's previous requests ended `agoMs` ago (maybe another process's): see buckets.ts holdWindowSince; returns the wait in ms. */
  holdWindowSince(agoMs: number): number;
  /** The latest send or answer (epoch ms) and the sends not answered yet: see buckets.ts activity. */
  activity(): { lastMs: number | null; inFlight: number };
  /** Live view of a bucket: limit, sends in the current window, pause. */
  usage(bucket: BucketName): BucketUsage;
  close(): Promise<void>;
}

const defaultSleep = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

export function createFleetClient(opts: FleetClientOptions): FleetClient {
  const zone = opts.timezone;
  const windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
  const now = opts.now;
  const sleep = opts.sleep ?? defaultSleep;
  const concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const redact = clientRedactor(opts.username, opts.password);
  const log = redactingLogger(opts.log ?? silentLogger, redact);
  const ownsDispatcher = !opts.dispatcher;
  const dispatcher = opts.dispatcher ?? createAgent({ connections: concurrency, timeoutMs });
  const policy: RetryPolicy = {
    ...defaultRetryPolicy(windowMs, opts.maxRetries ?? DEFAULT_MAX_RETRIES),
    ...(opts.maxRateLimitRetries === undefined ? {} : { maxRateLimitRetries: opts.maxRateLimitRetries }),
  };
  const buckets = createBucketSet({
    windowMs,
    limits: opts.limits,
    safetyMargin: opts.safetyMargin ?? DEFAULT_SAFETY_MARGIN,
    now,
    sleep,
  });
  const breaker = createBreaker({
    failures: opts.breakerFailures ?? DEFAULT_BREAKER_FAILURES,
    ms: opts.breakerMs ?? DEFAULT_BREAKER_MS,
    origin: new URL(opts.baseUrl).origin,
  });
  const gate = createGate();
  const requester = createRequester({
    breaker,
    gate,
    baseUrl: opts.baseUrl,
    authorization: basicAuth(opts.username, opts.password),
    dispatcher,
    buckets,
    policy,
    concurrency,
    timeoutMs,
    now,
    sleep,
    random: opts.random ?? Math.random,
    log,
    redact,
  });
  const S = schemasFor(zone);
  const reg = (r: string) => encodeURIComponent(r);

  async function single<T>(call: ApiCall, schema: z.ZodType<T>, o?: CallOptions): Promise<T | null> {
    const r = await requester.send(call, o);
    return r ? parseSingle(schema, r.json, { endpoint: call.endpoint, text: r.text }) : null;
  }

  /**
   * GET list with `page`/`limit` in the query; `key` is a record's identity for the page checks
   * (default its JSON: a few µs a record, which the largest lists, trips, save with their id).
   */
  function list<T>(
    call: ApiCall,
    schema: z.ZodType<T>,
    o?: CallOptions,
    key?: (x: T) => string,
  ): Promise<T[]> {
    return paginate(
      async (page, limit) => {
        const r = await requester.send({ ...call, query: { ...call.query, page, limit } }, o);
        return parseList(schema, r?.json ?? null, { endpoint: call.endpoint, text: r?.text ?? '' });
      },
      {
        endpoint: call.endpoint,
        limit: PAGE_LIMIT,
        maxRecords: o?.maxRecords,
        onTally: (t) => addTally(o?.meter, t),
        ...(key ? { key } : {}),
      },
    );
  }

  /** Bulk POST: 100 registrations per call, `page`/`limit` in the JSON body. */
  async function bulk<T extends { registration: string | null }>(
    path: string,
    registrations: string[],
    fromMs: number,
    toMs: number,
    schema: z.ZodType<T>,
    o?: CallOptions,
  ): Promise<(T & { registration: string })[]> {
    const endpoint = `POST ${path}`;
    const b = localBounds(fromMs, toMs, zone, CAP_24_HOURS, endpoint);
    const out: (T & { registration: string })[] = [];
    for (let i = 0; i < registrations.length; i += BULK_MAX_REGISTRATIONS) {
      const chunk = registrations.slice(i, i + BULK_MAX_REGISTRATIONS);
      const items = await paginate(
        async (page, limit) => {
          const body = { registrations: chunk, start_timestamp: b.start, end_timestamp: b.end, page, limit };
          const r = await requester.send({ method: 'POST', path, body, endpoint }, o);
          return parseList(schema, r?.json ?? null, { endpoint, text: r?.text ?? '' });
        },
        { endpoint, limit: PAGE_LIMIT, onTally: (t) => addTally(o?.meter, t) },
      );
      for (const it of items) {
        if (it.registration === null)
          throw payloadError(
            { endpoint, text: JSON.stringify(it) },
            'field data.registration: missing in a bulk item',
          );
        out.push(it as T & { registration: string });
      }
    }
    return out;
  }

  const window = (endpoint: string, fromMs: number, toMs: number, cap: number) => {
    const b = localBounds(fromMs, toMs, zone, cap, endpoint);
    return { start_timestamp: b.start, end_timestamp: b.end } satisfies Record<string, QueryValue>;
  };
  const withReg = <T extends { registration: string | null }>(x: T | null, r: string) =>
    x ? { ...x, registration: x.registration ?? r } : null;

  return {
    listVehicles: (o) => list({ method: 'GET', path: '/vehicles', endpoint: 'GET /vehicles' }, S.vehicle, o),

    async listTrips(fromMs, toMs, registration, o) {
      const endpoint = registration === undefined ? 'GET /trips' : 'GET /trips/{registration}';
      // Private trips too (a reduced data set): the tax logbook needs private kilometres.
      const query = { ...window(endpoint, fromMs, toMs, CAP_31_DAYS), incl_private: 'true' };
      const path = registration === undefined ? '/trips' : `/trips/${reg(registration)}`;
      return list({ method: 'GET', path, query, endpoint }, S.trip, o, (t) => t.trip_id);
    },

    async getOdometer(registration, fromMs, toMs, o) {
      const endpoint = 'GET /vehicles/{registration}/odometer';
      const query = window(endpoint, fromMs, toMs, CAP_31_DAYS);
      const path = `/vehicles/${reg(registration)}/odometer`;
      return withReg(await single({ method: 'GET', path, query, endpoint }, S.odometer, o), registration);
    },

    async getFuelConsumed(registration, fromMs, toMs, o) {
      const endpoint = 'GET /fuel/consumed/{registration}';
      const query = window(endpoint, fromMs, toMs, CAP_31_DAYS);
      const path = `/fuel/consumed/${reg(registration)}`;
      return withReg(await single({ method: 'GET', path, query, endpoint }, S.fuelConsumed, o), registration);
    },

    getFuelConsumedBulk: (regs, fromMs, toMs, o) =>
      bulk('/fuel/consumed', regs, fromMs, toMs, S.fuelConsumed, o),

    getEvConsumptionBulk: (regs, fromMs, toMs, o) =>
      bulk('/vehicles/ev-consumption', regs, fromMs, toMs, S.evConsumption, o),

    async getFuelLevel(registration, fromMs, toMs, o) {
      const endpoint = 'GET /fuel/level/{registration}';
      const query = window(endpoint, fromMs, toMs, CAP_31_DAYS);
      const path = `/fuel/level/${reg(registration)}`;
      return withReg(await single({ method: 'GET', path, query, endpoint }, S.fuelLevel, o), registration);
    },

    getFuelLevelBulk: (regs, fromMs, toMs, o) => bulk('/fuel/level', regs, fromMs, toMs, S.fuelLevel, o),

    async listFuelFills(registration, fromMs, toMs, o) {
      const endpoint = 'GET /fuel/fills/{registration}';
      const query = window(endpoint, fromMs, toMs, CAP_31_DAYS);
      const path = `/fuel/fills/${reg(registration)}`;
      const items = await list({ method: 'GET', path, query, endpoint }, S.fuelFill, o);
      return items.map((f) => ({ ...f, registration: f.registration ?? registration }));
    },

    async listFuelLevelHistory(registration, fromMs, toMs, o) {
      const endpoint = 'GET /fuel/level/history/{registration}';
      const query = window(endpoint, fromMs, toMs, CAP_31_DAYS);
      const path = `/fuel/level/history/${reg(registration)}`;
      const items = await list({ method: 'GET', path, query, endpoint }, S.fuelLevelReading, o);
      return items.map((r) => ({ ...r, registration: r.registration ?? registration }));
    },

    async listAllFuelFills(fromMs, toMs, o) {
      const endpoint = 'GET /fuel/fills';
      const query = window(endpoint, fromMs, toMs, CAP_24_HOURS);
      const items = await list({ method: 'GET', path: '/fuel/fills', query, endpoint }, S.fuelFill, o);
      return items.map((f) => {
        if (f.registration === null)
          throw payloadError({ endpoint, text: JSON.stringify(f) }, 'field data.registration: missing');
        return { ...f, registration: f.registration };
      });
    },

    listGeofences: (o) =>
      list({ method: 'GET', path: '/geofences', endpoint: 'GET /geofences' }, S.geofence, o),

    async listVisits(fromMs, toMs, filters, o) {
      const endpoint = 'GET /geofences/visits';
      const b = localBounds(fromMs, toMs, zone, CAP_24_HOURS, endpoint);
      const query: Record<string, QueryValue> = {
        'filter[enter_timestamp]': b.start,
        'filter[exit_timestamp]': b.end,
        'filter[is_toll]': filters?.isToll,
        'filter[vehicle_id]': filters?.vehicleId,
      };
      return list({ method: 'GET', path: '/geofences/visits', query, endpoint }, S.visit, o);
    },

    async listBookings(fromMs, toMs, o) {
      const endpoint = 'GET /carpool/bookings';
      const b = localBounds(fromMs, toMs, zone, CAP_31_DAYS, endpoint);
      const query = { 'filter[start_timestamp]': b.start, 'filter[end_timestamp]': b.end };
      return list({ method: 'GET', path: '/carpool/bookings', query, endpoint }, S.booking, o);
    },

    async getBooking(bookingId, o) {
      if (!Number.isInteger(bookingId)) throw new FleetsyncError('E_USAGE', `booking id must be an integer`);
      const endpoint = 'GET /carpool/bookings/{booking_id}';
      const call: ApiCall = {
        method: 'GET',
        path: `/carpool/bookings/${bookingId}`,
        endpoint,
        notFoundIsNull: true,
      };
      return single(call, S.booking, o);
    },

    listCarpoolVehicles: (o) =>
      list(
        { method: 'GET', path: '/carpool/vehicles', endpoint: 'GET /carpool/vehicles' },
        S.carpoolVehicle,
        o,
      ),
    listCarpoolDrivers: (o) =>
      list({ method: 'GET', path: '/carpool/drivers', endpoint: 'GET /carpool/drivers' }, S.carpoolDriver, o),
    listBookingRules: (o) =>
      list({ method: 'GET', path: '/carpool/rules', endpoint: 'GET /carpool/rules' }, S.bookingRule, o),

    async listVehicleActivity(day, o) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
        throw new FleetsyncError('E_USAGE', `activity day must be YYYY-MM-DD, not ${JSON.stringify(day)}`);
      const endpoint = 'GET /vehicles/activity';
      const query = { 'filter[date]': day };
      const items = await list({ method: 'GET', path: '/vehicles/activity', query, endpoint }, S.activity, o);
      return items.map((a) => ({ ...a, date: a.date ?? day }));
    },
    listDrivers: (o) => list({ method: 'GET', path: '/drivers', endpoint: 'GET /drivers' }, S.driver, o),

    stats: () => requester.stats(),
    rearm: (trusted = []) => {
      breaker.reset();
      gate.reset(trusted);
    },
    access: () => gate.view(),
    holdWindowSince: (agoMs) => buckets.holdWindowSince(agoMs),
    activity: () => buckets.activity(),
    usage: (bucket) => ({
      limit: limitFor(bucket, opts.limits),
      inWindow: buckets.inWindow(bucket),
      pausedUntilMs: buckets.pausedUntil(bucket),
    }),
    async close() {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}
