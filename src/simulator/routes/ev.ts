/**
 * EV data for the fleet's electric vehicles: a battery model derived from their trips, and the
 * three bulk POST endpoints `/vehicles/ev-consumption` (the sync's `ev_energy` stream reads it),
 * `/vehicles/range` and `/vehicles/soc` (only the spec tests), each its own 10/min bucket. Body as the bulk fuel POSTs: `registrations` (1–100, known plates),
 * `start_timestamp`, `end_timestamp` (≤ 24 h), `page`, `limit`. Vehicles that are not electric
 * are left out of the answer (they have no EV data), as `{"data":{}}` is for fuel.
 *
 * Battery model (deterministic): 60 kWh usable, 0.16 kWh per km driven; state of charge starts
 * at 90 % and falls linearly over a trip; a vehicle parked for 30 min is plugged in and charges at
 * 7 kW up to 90 %, unplugged at the next ignition ON. Range = SoC × 60 kWh / 0.16 kWh/km.
 */
import type { Fleet, SimVehicle } from '../model.ts';
import { lastAtOrBefore } from '../gen/series.ts';
import { wireTs } from '../wire.ts';
import { horizonOf } from '../lookup.ts';
import {
  bulkBody,
  paginate,
  parsePage,
  type Reply,
  type Route,
  type RouteContext,
  type Window,
} from './common.ts';

export const BATTERY_KWH = 60;
export const KWH_PER_KM = 0.16;
const CHARGE_KW = 7;
const FULL = 90;
const PLUG_AFTER_MS = 30 * 60_000;
const HOUR = 3_600_000;

export type ChargingStatus = 'PLUGGED_CHARGING' | 'PLUGGED_NOT_CHARGING' | 'UNPLUGGED';

interface Timeline {
  starts: number[];
  ends: number[];
  socStart: number[];
  socEnd: number[];
}

const cache = new WeakMap<Fleet, Map<number, Timeline>>();
const pctPerKm = (KWH_PER_KM / BATTERY_KWH) * 100;
const pctPerMs = (CHARGE_KW / BATTERY_KWH / HOUR) * 100;

/** SoC after parking from `endMs` (at `soc`) until `ms`. */
function parkedSoc(soc: number, endMs: number, ms: number): number {
  if (ms - endMs < PLUG_AFTER_MS || soc >= FULL) return soc;
  return Math.min(FULL, soc + (ms - endMs - PLUG_AFTER_MS) * pctPerMs);
}

function timelineOf(fleet: Fleet, v: SimVehicle): Timeline {
  let perFleet = cache.get(fleet);
  if (!perFleet) cache.set(fleet, (perFleet = new Map()));
  const hit = perFleet.get(v.vehicle_id);
  if (hit) return hit;
  const t: Timeline = { starts: [], ends: [], socStart: [], socEnd: [] };
  let soc = FULL;
  let lastEnd: number | null = null;
  for (const trip of fleet.tripsOf(v.vehicle_id)) {
    if (lastEnd !== null) soc = parkedSoc(soc, lastEnd, trip.start_ms);
    t.starts.push(trip.start_ms);
    t.socStart.push(soc);
    soc = Math.max(5, soc - (trip.distance_m / 1000) * pctPerKm);
    t.ends.push(trip.end_ms);
    t.socEnd.push(soc);
    lastEnd = trip.end_ms;
  }
  perFleet.set(v.vehicle_id, t);
  return t;
}

export interface BatteryState {
  soc: number;
  charging: ChargingStatus;
  /** When the charging status last changed. */
  chargingSinceMs: number;
  driving: boolean;
}

export function batteryAt(fleet: Fleet, v: SimVehicle, ms: number): BatteryState {
  const t = timelineOf(fleet, v);
  const i = lastAtOrBefore(t.starts, ms, (x) => x);
  if (i < 0)
    return { soc: FULL, charging: 'PLUGGED_NOT_CHARGING', chargingSinceMs: fleet.startMs, driving: false };
  const start = t.starts[i]!;
  const end = t.ends[i]!;
  if (ms < end) {
    const f = (ms - start) / Math.max(1, end - start);
    return {
      soc: t.socStart[i]! + (t.socEnd[i]! - t.socStart[i]!) * f,
      charging: 'UNPLUGGED',
      chargingSinceMs: start,
      driving: true,
    };
  }
  const socEnd = t.socEnd[i]!;
  const soc = parkedSoc(socEnd, end, ms);
  if (ms - end < PLUG_AFTER_MS) return { soc, charging: 'UNPLUGGED', chargingSinceMs: end, driving: false };
  const fullAt = end + PLUG_AFTER_MS + Math.max(0, FULL - socEnd) / pctPerMs;
  return soc < FULL
    ? { soc, charging: 'PLUGGED_CHARGING', chargingSinceMs: end + PLUG_AFTER_MS, driving: false }
    : { soc, charging: 'PLUGGED_NOT_CHARGING', chargingSinceMs: Math.floor(fullAt), driving: false };
}

const r1 = (n: number) => Math.round(n * 10) / 10;
export const rangeKm = (soc: number) => Math.round(((soc / 100) * BATTERY_KWH) / KWH_PER_KM);

function bulkRequest(ctx: RouteContext): {
  vehicles: SimVehicle[];
  w: Window;
  page: ReturnType<typeof parsePage>;
} {
  const { vehicles, w, body } = bulkBody(ctx);
  return {
    vehicles: vehicles.filter((v) => v.powertrain === 'electric'),
    w,
    page: parsePage(body.page, body.limit),
  };
}

/** Sample instants of a window: every 15 minutes, up to the vehicle's horizon. */
function samples(w: Window, h: number): number[] {
  const out: number[] = [];
  const step = 15 * 60_000;
  for (let ms = Math.ceil(w.startMs / step) * step; ms < w.endMs && ms <= h; ms += step) out.push(ms);
  return out;
}

function consumption(ctx: RouteContext): Reply {
  const { vehicles, w, page } = bulkRequest(ctx);
  const zone = ctx.fleet.timezone;
  const items = vehicles.flatMap((v) => {
    const h = horizonOf(v, ctx.now);
    if (w.startMs > h) return [];
    const to = Math.min(h, w.endMs);
    const km = ctx.fleet.truth.distanceM(v.vehicle_id, w.startMs, to) / 1000;
    const a = batteryAt(ctx.fleet, v, w.startMs);
    const b = batteryAt(ctx.fleet, v, to);
    return [
      {
        vehicle_id: v.vehicle_id,
        registration: v.registration,
        start_timestamp: wireTs(w.startMs, zone),
        end_timestamp: wireTs(to, zone),
        distance: Math.round(km * 1000),
        energy_consumed_kwh: r1(km * KWH_PER_KM),
        energy_charged_kwh: r1(Math.max(0, ((b.soc - a.soc) / 100) * BATTERY_KWH + km * KWH_PER_KM)),
        kwh_per_100km: km > 0 ? r1(KWH_PER_KM * 100) : null,
        start_soc: Math.round(a.soc),
        end_soc: Math.round(b.soc),
      },
    ];
  });
  return { kind: 'ev_consumption', body: paginate(items, page) };
}

function events(ctx: RouteContext, kind: 'range' | 'soc'): Reply {
  const { vehicles, w, page } = bulkRequest(ctx);
  const zone = ctx.fleet.timezone;
  const items = vehicles.flatMap((v) =>
    samples(w, horizonOf(v, ctx.now)).map((ms) => {
      const s = batteryAt(ctx.fleet, v, ms);
      const base = { vehicle_id: v.vehicle_id, registration: v.registration, event_ts: wireTs(ms, zone) };
      return kind === 'range'
        ? { ...base, range_km: rangeKm(s.soc), battery_percentage_left: Math.round(s.soc) }
        : { ...base, soc: r1(s.soc), charging_status: s.charging };
    }),
  );
  return { body: paginate(items, page) };
}

/** The energy the sync reads (stream `ev_energy`). */
export const evConsumptionRoutes: Route[] = [
  { method: 'POST', path: '/vehicles/ev-consumption', handler: consumption },
];

/** Range and state-of-charge events: only the spec tests read them (mounted from ../spec/). */
export const evEventRoutes: Route[] = [
  { method: 'POST', path: '/vehicles/range', handler: (ctx) => events(ctx, 'range') },
  { method: 'POST', path: '/vehicles/soc', handler: (ctx) => events(ctx, 'soc') },
];
