/**
 * GET /vehicles, GET /vehicles/status, GET /vehicles/{registration}/odometer, and the endpoints
 * that exist mainly for their own rate-limit buckets (events, idling, vext, EV POSTs, vision).
 * Validation on /vehicles, /vehicles/status, the odometer and /vehicles/events answers 400, as
 * the published spec lists for those operations; everything else answers 422.
 */
import type { Fleet, SimVehicle } from '../model.ts';
import {
  coordinatesOf,
  engineType,
  lastEventAt,
  terminalAt,
  tripAtOrBefore,
  vehicleWire,
  wireTs,
} from '../wire.ts';
import {
  CAP_24_HOURS_S,
  CAP_31_DAYS_S,
  horizonOf,
  intFilter,
  pageOf,
  paginate,
  parseWindow,
  vehicleByRegistration,
  type Route,
  type RouteContext,
} from './common.ts';

function filterVehicles(ctx: RouteContext, status: number): SimVehicle[] {
  const id = intFilter(ctx.query, 'filter[vehicle_id]', status);
  const reg = ctx.query.get('filter[registration]')?.toLowerCase();
  return ctx.fleet.vehicles.filter(
    (v) => (id === undefined || v.vehicle_id === id) && (!reg || v.registration.toLowerCase().includes(reg)),
  );
}

function statusOf(fleet: Fleet, v: SimVehicle, now: number, inKm: boolean) {
  const h = horizonOf(v, now);
  const zone = fleet.timezone;
  const trip = tripAtOrBefore(fleet.tripsOf(v.vehicle_id), h);
  const driving = trip !== undefined && trip.end_ms > h;
  const eventMs = lastEventAt(fleet, v, h);
  const odometer = fleet.odometerAt(v.vehicle_id, eventMs);
  const driver =
    driving && trip.driver_id ? fleet.drivers.find((d) => d.driver_id === trip.driver_id) : undefined;
  const place = trip ? (driving ? trip.start_location : trip.end_location) : 'Depot';
  const level = fleet.fuelLevelAt(v.vehicle_id, eventMs);
  return {
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    engine_type: engineType(v),
    chassis_number: v.chassis_number,
    event_ts: wireTs(eventMs, zone),
    bearing: 0,
    speed: driving ? 60 : 0,
    ignition: driving,
    idling: false,
    odometer: inKm ? Math.round(odometer / 100) / 10 : Math.round(odometer),
    driver: driver
      ? { driver_id: driver.driver_id, first_name: driver.first_name, last_name: driver.last_name }
      : null,
    fuel: {
      updated: wireTs(eventMs, zone),
      level: level === null ? null : Math.round(level * 10) / 10,
      percentage_left: level === null || !v.tank_l ? null : Math.round((level / v.tank_l) * 100),
      total_consumed: ((c) => (c === null ? null : Math.round(c * 100) / 100))(
        fleet.fuelCounterAt(v.vehicle_id, eventMs),
      ),
    },
    location: {
      updated: wireTs(eventMs, zone),
      ...coordinatesOf(place),
      gps_fix_type: 3,
      position_description: place,
      geofence_ids: [],
    },
  };
}

function odometer(ctx: RouteContext) {
  const { fleet, now, query } = ctx;
  const v = vehicleByRegistration(fleet, ctx.params.registration);
  const w = parseWindow(
    query.get('start_timestamp') ?? undefined,
    query.get('end_timestamp') ?? undefined,
    ['start_timestamp', 'end_timestamp'],
    fleet.timezone,
    CAP_31_DAYS_S,
    400,
  );
  const h = horizonOf(v, now);
  if (w.endMs <= fleet.startMs || w.startMs > h) return { body: { data: null }, kind: 'odometer' as const };
  const readAt = Math.min(h, w.endMs);
  const start = Math.round(fleet.odometerAt(v.vehicle_id, w.startMs));
  const end = Math.round(fleet.odometerAt(v.vehicle_id, readAt));
  const events = fleet.odometerEvents.filter(
    (e) => e.vehicle_id === v.vehicle_id && e.at_ms >= w.startMs && e.at_ms < readAt,
  );
  const zone = fleet.timezone;
  return {
    kind: 'odometer' as const,
    body: {
      data: {
        vehicle_id: v.vehicle_id,
        registration: v.registration,
        chassis_number: v.chassis_number,
        terminal_serial: terminalAt(v, readAt - 1),
        start_timestamp: wireTs(w.startMs, zone),
        end_timestamp: wireTs(w.endMs - 1000, zone),
        start_odometer_value: start,
        end_odometer_value: end,
        // Garbage when a reset or tracker change lies in the window, as on the real service.
        distance: end - start,
        current_odometer_value: Math.round(fleet.odometerAt(v.vehicle_id, h)),
        last_event_ts: wireTs(lastEventAt(fleet, v, Math.min(h, w.endMs - 1)), zone),
        odometer_reset: events.some((e) => e.kind === 'odometer_reset'),
        terminal_has_changed: events.some((e) => e.kind === 'terminal_has_changed'),
      },
    },
  };
}

/** Ignition on/off events derived from trips, for the events endpoints. */
function ignitionEvents(fleet: Fleet, v: SimVehicle, from: number, to: number, h: number) {
  const out: { ms: number; item: Record<string, unknown> }[] = [];
  fleet.tripsOf(v.vehicle_id).forEach((t, i) => {
    for (const [k, ms, on] of [
      [0, t.start_ms, true],
      [1, t.end_ms, false],
    ] as const) {
      if (ms < from || ms >= to || ms > h) continue;
      out.push({
        ms,
        item: {
          event_id: v.vehicle_id * 10_000_000 + i * 2 + k,
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          event_description: on ? 'IGNITION_ON' : 'IGNITION_OFF',
          event_ts: wireTs(ms, fleet.timezone),
          received_ts: wireTs(ms + v.report_delay_ms, fleet.timezone),
          odometer: Math.round(fleet.odometerAt(v.vehicle_id, ms)),
          ignition: on,
          driver_id: t.driver_id,
        },
      });
    }
  });
  return out;
}

function events(ctx: RouteContext, vehicles: readonly SimVehicle[], status: number) {
  const { fleet, query } = ctx;
  const w = parseWindow(
    query.get('start_timestamp') ?? undefined,
    query.get('end_timestamp') ?? undefined,
    ['start_timestamp', 'end_timestamp'],
    fleet.timezone,
    CAP_24_HOURS_S,
    status,
  );
  const all = vehicles
    .flatMap((v) => ignitionEvents(fleet, v, w.startMs, w.endMs, horizonOf(v, ctx.now)))
    .sort((a, b) => a.ms - b.ms || Number(a.item.event_id) - Number(b.item.event_id));
  return {
    body: paginate(
      all.map((e) => e.item),
      pageOf(query, status),
    ),
  };
}

const emptyList = (ctx: RouteContext) => ({ body: paginate([], pageOf(ctx.query)) });

export const vehicleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/vehicles',
    handler: (ctx) => ({
      kind: 'vehicle',
      body: paginate(
        filterVehicles(ctx, 400).map((v) => vehicleWire(v, ctx.now)),
        pageOf(ctx.query, 400),
      ),
    }),
  },
  {
    method: 'GET',
    path: '/vehicles/status',
    handler: (ctx) => ({
      kind: 'vehicle_status',
      body: {
        data: filterVehicles(ctx, 400).map((v) =>
          statusOf(ctx.fleet, v, ctx.now, ctx.query.get('odometer_in_km') === 'true'),
        ),
      },
    }),
  },
  { method: 'GET', path: '/vehicles/events', handler: (ctx) => events(ctx, ctx.fleet.vehicles, 400) },
  {
    method: 'GET',
    path: '/vehicles/vext',
    handler: (ctx) => ({
      body: {
        data: ctx.fleet.vehicles.map((v) => ({
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          vext: 12.6,
          event_ts: wireTs(lastEventAt(ctx.fleet, v, horizonOf(v, ctx.now)), ctx.fleet.timezone),
        })),
      },
    }),
  },
  { method: 'POST', path: '/vehicles/ev-consumption', handler: emptyList },
  { method: 'POST', path: '/vehicles/range', handler: emptyList },
  { method: 'POST', path: '/vehicles/soc', handler: emptyList },
  { method: 'GET', path: '/vehicles/{registration}/odometer', handler: odometer },
  {
    method: 'GET',
    path: '/vehicles/{registration}/events',
    handler: (ctx) => events(ctx, [vehicleByRegistration(ctx.fleet, ctx.params.registration)], 422),
  },
  {
    method: 'GET',
    path: '/vehicles/{registration}/events/idling',
    handler: (ctx) => {
      vehicleByRegistration(ctx.fleet, ctx.params.registration);
      return emptyList(ctx);
    },
  },
  {
    method: 'GET',
    path: '/vision/status',
    handler: (ctx) => ({
      body: {
        data: ctx.fleet.vehicles.map((v) => ({
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          online: false,
        })),
      },
    }),
  },
];
