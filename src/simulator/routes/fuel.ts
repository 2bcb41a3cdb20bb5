/**
 * Fuel: consumed (ECU counter), level / estimated used, the level series, fills — per vehicle (GET, ≤ 31 days) and
 * in bulk (POST, ≤ 24 h, ≤ 100 registrations, 10/min buckets), plus all-vehicle fills (≤ 24 h).
 * Variants the parsers must survive: `{"data":{}}` for a vehicle without the sensor, whole-litre
 * `fuel_consumed`, `vehicle_id` as a string in POST /fuel/consumed items, `meta.calibrated` on
 * fills, a fill listed twice.
 */
import type { Fleet, SimFill, SimFuelDrop, SimVehicle } from '../model.ts';
import { firstWhere } from '../gen/series.ts';
import { horizonOf, sliceByKey, WindowRows } from '../lookup.ts';
import { fillWire, isListedTwice, isoTs } from '../wire.ts';
import {
  bulkBody,
  CAP_24_HOURS_S,
  CAP_31_DAYS_S,
  pageOf,
  paginate,
  paginateAs,
  parsePage,
  parseWindow,
  vehicleByRegistration,
  type Reply,
  type Route,
  type RouteContext,
  type Window,
} from './common.ts';

const r2 = (n: number) => Math.round(n * 100) / 100;
/** Level readings of the last two hours are not yet reprocessed. */
const REPROCESS_MS = 2 * 3_600_000;
const hasLevel = (v: SimVehicle) => v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level;

function consumed(fleet: Fleet, v: SimVehicle, w: Window, now: number, idAsString: boolean) {
  const h = horizonOf(v, now);
  if (!v.sensors.fuel_canbus_consumed || w.startMs > h) return null;
  const start = fleet.fuelCounterAt(v.vehicle_id, w.startMs);
  const end = fleet.fuelCounterAt(v.vehicle_id, Math.min(h, w.endMs));
  if (start === null || end === null) return null;
  return {
    vehicle_id: idAsString ? String(v.vehicle_id) : v.vehicle_id,
    registration: v.registration,
    fuel_consumed_start: r2(start),
    fuel_consumed_end: r2(end),
    fuel_consumed: Math.round(end - start),
  };
}

function fillsIn(fleet: Fleet, v: SimVehicle, w: Window, now: number) {
  if (!hasLevel(v)) return [];
  const h = horizonOf(v, now);
  return fillsBetween(fleet, v, w.startMs, w.endMs)
    .filter((f) => f.at_ms <= h)
    .flatMap((f) => (isListedTwice(f) ? [f, f] : [f]));
}

function level(fleet: Fleet, v: SimVehicle, w: Window, now: number, withIds: boolean) {
  const h = horizonOf(v, now);
  if (!hasLevel(v) || w.startMs > h) return null;
  const readAt = Math.min(h, w.endMs);
  const start = fleet.fuelLevelAt(v.vehicle_id, w.startMs);
  const end = fleet.fuelLevelAt(v.vehicle_id, readAt);
  if (start === null || end === null) return null;
  const filled = fillsBetween(fleet, v, w.startMs, readAt).reduce((s, f) => s + f.litres, 0);
  // A staged drop is not fuel used: the estimate stays the fuel burned.
  const dropped = fleet.fuelDropsOf(v.vehicle_id).reduce((s, d) => s + droppedIn(d, w.startMs, readAt), 0);
  const zone = fleet.timezone;
  return {
    ...(withIds ? { vehicle_id: v.vehicle_id, registration: v.registration } : {}),
    start_period: { liters: r2(start), timestamp: isoTs(w.startMs, zone), accurate: true },
    end_period: { liters: r2(end), timestamp: isoTs(readAt, zone), accurate: readAt <= now - REPROCESS_MS },
    estimated_fuel_used: r2(Math.max(0, start - end + filled - dropped)),
    calibrated: v.sensors.fuel_canbus_level,
  };
}

/** The vehicle's fills at `fromMs <= at < toMs`, in order (by binary search). */
const fillsBetween = (fleet: Fleet, v: SimVehicle, fromMs: number, toMs: number) =>
  sliceByKey(fleet.fillsOf(v.vehicle_id), fromMs, toMs, (f) => f.at_ms);

/**
 * The instants of the level series GET /fuel/level/history/{registration} serves: a reading at
 * every ignition on and off, every 10 minutes while driving, every hour on the hour (heartbeat), a
 * minute before and at each fill, and every 5 minutes through a drop (the sensor reports a sudden
 * change). Readings after the vehicle's reporting horizon are not there yet. Only a page's
 * readings are computed and written (`levelReading`).
 */
function levelHistory(fleet: Fleet, v: SimVehicle, w: Window, now: number): number[] {
  if (!hasLevel(v)) return [];
  const to = Math.min(w.endMs, horizonOf(v, now) + 1);
  if (to <= w.startMs) return [];
  const at = new Set<number>();
  const add = (ms: number) => {
    const sec = Math.floor(ms / 1000) * 1000;
    if (sec >= w.startMs && sec < to) at.add(sec);
  };
  for (let h = Math.ceil(w.startMs / 3_600_000) * 3_600_000; h < to; h += 3_600_000) add(h);
  // Only the trips that end at or after the start and start before the end can add an instant:
  // a vehicle's trips are ordered and do not overlap, so they are a slice found by binary search.
  const trips = fleet.tripsOf(v.vehicle_id);
  for (let i = firstWhere(trips, (t) => t.end_ms >= w.startMs); i < trips.length; i++) {
    const t = trips[i]!;
    if (t.start_ms >= to) break;
    for (let m = t.start_ms; m < t.end_ms; m += 10 * 60_000) add(m);
    add(t.end_ms);
  }
  // A fill adds its instant and the minute before: only fills up to a minute after the end can.
  for (const f of fillsBetween(fleet, v, w.startMs, to + 61_000)) {
    add(f.at_ms - 60_000);
    add(f.at_ms);
  }
  for (const d of fleet.fuelDropsOf(v.vehicle_id)) {
    for (let m = d.start_ms; m < d.end_ms; m += 5 * 60_000) add(m);
    add(d.end_ms);
  }
  return [...at].sort((a, b) => a - b);
}

/** One reading of the level series. */
const levelReading = (fleet: Fleet, v: SimVehicle, ms: number, now: number) => ({
  vehicle_id: v.vehicle_id,
  registration: v.registration,
  liters: r2(fleet.fuelLevelAt(v.vehicle_id, ms)!),
  timestamp: isoTs(ms, fleet.timezone),
  accurate: ms <= now - REPROCESS_MS,
});

/** Litres of a drop lost inside [fromMs, toMs] (linear over the drop). */
function droppedIn(d: SimFuelDrop, fromMs: number, toMs: number): number {
  const lost = (ms: number) =>
    ms <= d.start_ms
      ? 0
      : ms >= d.end_ms
        ? d.litres
        : (d.litres * (ms - d.start_ms)) / (d.end_ms - d.start_ms);
  return lost(toMs) - lost(fromMs);
}

const keptFills = new WindowRows<{ f: SimFill; v: SimVehicle }>(
  (r) => r.v,
  (r) => r.f.at_ms,
);

const queryWindow = (ctx: RouteContext, capS: number) =>
  parseWindow(
    ctx.query.get('start_timestamp') ?? undefined,
    ctx.query.get('end_timestamp') ?? undefined,
    ['start_timestamp', 'end_timestamp'],
    ctx.fleet.timezone,
    capS,
  );

function bulk(ctx: RouteContext, kind: 'fuel_consumed' | 'fuel_level'): Reply {
  const { vehicles, w, body } = bulkBody(ctx);
  const page = parsePage(body.page, body.limit);
  const items = vehicles
    .map((v) =>
      kind === 'fuel_consumed'
        ? consumed(ctx.fleet, v, w, ctx.now, true)
        : level(ctx.fleet, v, w, ctx.now, true),
    )
    .filter((x) => x !== null);
  return { kind, body: paginate(items, page) };
}

export const fuelRoutes: Route[] = [
  {
    method: 'GET',
    path: '/fuel/consumed/{registration}',
    handler: (ctx) => {
      const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
      const data = consumed(ctx.fleet, v, queryWindow(ctx, CAP_31_DAYS_S), ctx.now, false);
      return { kind: 'fuel_consumed', body: { data: data ?? {} } };
    },
  },
  {
    method: 'GET',
    path: '/fuel/level/{registration}',
    handler: (ctx) => {
      const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
      const data = level(ctx.fleet, v, queryWindow(ctx, CAP_31_DAYS_S), ctx.now, false);
      return { kind: 'fuel_level', body: { data: data ?? {} } };
    },
  },
  {
    method: 'GET',
    path: '/fuel/fills/{registration}',
    handler: (ctx) => {
      const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
      const w = queryWindow(ctx, CAP_31_DAYS_S);
      const page = pageOf(ctx.query);
      const items = fillsIn(ctx.fleet, v, w, ctx.now).map((f) => fillWire(f, v, ctx.fleet.timezone));
      return { kind: 'fuel_fill', body: paginate(items, page, { calibrated: v.sensors.fuel_canbus_level }) };
    },
  },
  {
    method: 'GET',
    path: '/fuel/fills',
    handler: (ctx) => {
      const w = queryWindow(ctx, CAP_24_HOURS_S);
      const page = pageOf(ctx.query);
      // The fleet's fills of the window, gathered and sorted once per window (kept across its
      // pages); each page keeps those that have reached the API.
      const key = `${w.startMs}|${w.endMs}`;
      const items = keptFills.visible(ctx.fleet, key, ctx.now, () =>
        ctx.fleet.vehicles
          .flatMap((v) => fillsIn(ctx.fleet, v, w, Infinity).map((f) => ({ f, v })))
          .sort((a, b) => a.f.at_ms - b.f.at_ms || a.v.vehicle_id - b.v.vehicle_id),
      );
      const wire = ({ f, v }: (typeof items)[number]) => fillWire(f, v, ctx.fleet.timezone);
      return { kind: 'fuel_fill', body: paginateAs(items, page, wire, { calibrated: true }) };
    },
  },
  {
    method: 'GET',
    path: '/fuel/level/history/{registration}',
    handler: (ctx) => {
      const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
      const w = queryWindow(ctx, CAP_31_DAYS_S);
      return {
        kind: 'fuel_level_history',
        body: paginateAs(levelHistory(ctx.fleet, v, w, ctx.now), pageOf(ctx.query), (ms) =>
          levelReading(ctx.fleet, v, ms, ctx.now),
        ),
      };
    },
  },
  { method: 'POST', path: '/fuel/consumed', handler: (ctx) => bulk(ctx, 'fuel_consumed') },
  { method: 'POST', path: '/fuel/level', handler: (ctx) => bulk(ctx, 'fuel_level') },
];
