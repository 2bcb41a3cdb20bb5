/**
 * Vehicle events derived from the fleet's trips: `GET /vehicles/events` (all vehicles, ≤ 24 h,
 * 60/min, validation 400), `GET /vehicles/{registration}/events` (≤ 24 h, 200/min, 422),
 * `GET /vehicles/{registration}/events/idling` (≤ 24 h, 200/min, 422) and `GET /vehicles/vext`
 * (latest external voltage of every vehicle, regardless of ignition; 10/min).
 *
 * Per trip: IGNITION_ON at start, IDLING_START/IDLING_END for the idle at the start of the trip
 * (0–5 min, derived from the trip id), a POSITION event every 5 minutes while driving, and
 * IGNITION_OFF at the end. Event fields follow wire notes §5.8 (schema `vehicle-event-base`).
 * An event is visible once the vehicle's data has reached the API (report delay).
 */
import type { Fleet, SimTrip, SimVehicle } from '../model.ts';
import { coordinatesOf, lastEventAt, tripAtOrBefore, wireTs } from '../wire.ts';
import { horizonOf } from '../lookup.ts';
import {
  CAP_24_HOURS_S,
  pageOf,
  paginate,
  parseWindow,
  vehicleByRegistration,
  type Reply,
  type Route,
  type RouteContext,
} from '../routes/common.ts';

const POSITION_EVERY_MS = 5 * 60_000;
const TYPES = { IGNITION_ON: 1, IGNITION_OFF: 2, POSITION: 3, IDLING_START: 40, IDLING_END: 41 } as const;
type EventName = keyof typeof TYPES;

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** Seconds the vehicle idled at the start of the trip (0–300; never more than a third of the trip). */
export function idleSecondsOf(t: SimTrip): number {
  const max = Math.floor((t.end_ms - t.start_ms) / 3000);
  return Math.min(max, hash(t.trip_id) % 301);
}

/** External (12 V system) voltage: alternator charging while the engine runs, battery rest when parked. */
export function vextAt(fleet: Fleet, v: SimVehicle, ms: number, driving: boolean): number {
  const wobble = (hash(`${v.vehicle_id}:${Math.floor(ms / 600_000)}`) % 21) / 100;
  return Math.round(((driving ? 13.8 : 12.45) + wobble) * 100) / 100;
}

interface Ev {
  ms: number;
  item: Record<string, unknown>;
}

function eventsOfTrip(t: SimTrip): { ms: number; name: EventName }[] {
  const out: { ms: number; name: EventName }[] = [{ ms: t.start_ms, name: 'IGNITION_ON' }];
  const idle = idleSecondsOf(t);
  if (idle > 0) {
    out.push({ ms: t.start_ms + 1000, name: 'IDLING_START' });
    out.push({ ms: t.start_ms + idle * 1000, name: 'IDLING_END' });
  }
  for (let ms = t.start_ms + POSITION_EVERY_MS; ms < t.end_ms; ms += POSITION_EVERY_MS)
    out.push({ ms, name: 'POSITION' });
  out.push({ ms: t.end_ms, name: 'IGNITION_OFF' });
  return out;
}

function eventWire(
  fleet: Fleet,
  v: SimVehicle,
  t: SimTrip,
  tripIndex: number,
  k: number,
  ms: number,
  name: EventName,
) {
  const driving = name !== 'IGNITION_OFF';
  const moving = name === 'POSITION';
  const place = name === 'IGNITION_OFF' ? t.end_location : t.start_location;
  const c = coordinatesOf(moving ? `${t.trip_id}:${k}` : place);
  const zone = fleet.timezone;
  return {
    event_id: v.vehicle_id * 10_000_000 + tripIndex * 1000 + k,
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    chassis_number: v.chassis_number,
    terminal_event_type_id: TYPES[name],
    event_description: name,
    latitude: c.latitude,
    longitude: c.longitude,
    altitude: 40 + (hash(place) % 60),
    odometer: Math.round(fleet.odometerAt(v.vehicle_id, ms)),
    bearing: moving ? hash(`${t.trip_id}b${k}`) % 360 : 0,
    ignition: driving,
    speed: moving ? 30 + (hash(`${t.trip_id}s${k}`) % 60) : 0,
    road_speed: moving ? 60 : 0,
    road_speeding: false,
    rpm: moving ? 1800 : driving ? 750 : 0,
    vext: vextAt(fleet, v, ms, driving),
    vgsm: 4.1,
    gps_fix_type: 3,
    position_description: moving ? `En route from ${t.start_location}` : place,
    event_ts: wireTs(ms, zone),
    received_ts: wireTs(ms + v.report_delay_ms, zone),
    driver_id: t.driver_id,
  };
}

function vehicleEvents(
  fleet: Fleet,
  v: SimVehicle,
  from: number,
  to: number,
  h: number,
  only?: EventName[],
): Ev[] {
  const out: Ev[] = [];
  const trips = fleet.tripsOf(v.vehicle_id);
  trips.forEach((t, i) => {
    if (t.end_ms < from || t.start_ms >= to) return;
    eventsOfTrip(t).forEach((e, k) => {
      if (e.ms < from || e.ms >= to || e.ms > h) return;
      if (only && !only.includes(e.name)) return;
      out.push({ ms: e.ms, item: eventWire(fleet, v, t, i, k, e.ms, e.name) });
    });
  });
  return out;
}

function window(ctx: RouteContext, status: number) {
  return parseWindow(
    ctx.query.get('start_timestamp') ?? undefined,
    ctx.query.get('end_timestamp') ?? undefined,
    ['start_timestamp', 'end_timestamp'],
    ctx.fleet.timezone,
    CAP_24_HOURS_S,
    status,
  );
}

function listEvents(ctx: RouteContext, vehicles: readonly SimVehicle[], status: number): Reply {
  const w = window(ctx, status);
  const page = pageOf(ctx.query, status);
  const all = vehicles
    .flatMap((v) => vehicleEvents(ctx.fleet, v, w.startMs, w.endMs, horizonOf(v, ctx.now)))
    .sort((a, b) => a.ms - b.ms || Number(a.item.event_id) - Number(b.item.event_id));
  return {
    body: paginate(
      all.map((e) => e.item),
      page,
    ),
  };
}

function idling(ctx: RouteContext): Reply {
  const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
  const w = window(ctx, 422);
  const page = pageOf(ctx.query);
  const h = horizonOf(v, ctx.now);
  const zone = ctx.fleet.timezone;
  const items = ctx.fleet
    .tripsOf(v.vehicle_id)
    .filter((t) => t.start_ms >= w.startMs && t.start_ms < w.endMs && idleSecondsOf(t) > 0)
    .filter((t) => t.start_ms + idleSecondsOf(t) * 1000 <= h)
    .map((t) => {
      const s = idleSecondsOf(t);
      return {
        vehicle_id: v.vehicle_id,
        registration: v.registration,
        start_timestamp: wireTs(t.start_ms + 1000, zone),
        end_timestamp: wireTs(t.start_ms + s * 1000, zone),
        idle_duration_seconds: s - 1,
        ...coordinatesOf(t.start_location),
        position_description: t.start_location,
        driver_id: t.driver_id,
      };
    });
  return { body: paginate(items, page) };
}

export const eventRoutes: Route[] = [
  { method: 'GET', path: '/vehicles/events', handler: (ctx) => listEvents(ctx, ctx.fleet.vehicles, 400) },
  {
    method: 'GET',
    path: '/vehicles/{registration}/events',
    handler: (ctx) => listEvents(ctx, [vehicleByRegistration(ctx.fleet, ctx.params.registration)], 422),
  },
  { method: 'GET', path: '/vehicles/{registration}/events/idling', handler: idling },
  {
    method: 'GET',
    path: '/vehicles/vext',
    handler: (ctx) => ({
      body: {
        data: ctx.fleet.vehicles.map((v) => {
          const h = horizonOf(v, ctx.now);
          const ms = lastEventAt(ctx.fleet, v, h);
          const t = tripAtOrBefore(ctx.fleet.tripsOf(v.vehicle_id), ms);
          const driving = t !== undefined && ms < t.end_ms;
          return {
            vehicle_id: v.vehicle_id,
            registration: v.registration,
            vext: vextAt(ctx.fleet, v, ms, driving),
            ignition: driving,
            event_ts: wireTs(ms, ctx.fleet.timezone),
          };
        }),
      },
    }),
  },
];
