/**
 * `GET /vehicles/status` (60/min, no pagination, validation 400) with the spec's current-driver
 * rule, and the driver linkage API of the simulator.
 *
 * Current driver of a vehicle at its data horizon `h`, the most recent active one of:
 * - a driver tag read while ignition is ON: the trip's driver (read at ignition ON), or a later
 *   tag read during the same trip (`handle.driverTagRead`); kept until ignition OFF or another
 *   tag read; a read while ignition is OFF is ignored;
 * - an app self-assignment (`handle.appSelfAssign`), kept until the next ignition OFF after it;
 * - a linkage (`POST /vehicles/{registration}/driver-linkage`), kept until unlinked;
 * otherwise the vehicle's default driver (`defaultDriverOf`; some vehicles have none → null).
 *
 * Linkage routes (simulator's choice; the spec does not show the real paths):
 *   POST   /vehicles/{registration}/driver-linkage  body {"driver_id": uuid} → 200 {data: linkage}
 *   DELETE /vehicles/{registration}/driver-linkage  → 200 {data:{}} (404 when none)
 *   GET    /vehicles/driver-linkages                → {data: [linkage]}
 * Query of the status: filter[registration] (partial), filter[vehicle_id], filter[engine_type]
 * (partial), filter[ignition] (true/false), odometer_in_km=true (km, one decimal).
 */
import { regularDriverOf } from '../gen/trips.ts';
import { horizonOf, vehiclePosition } from '../lookup.ts';
import type { Fleet, SimDriver, SimTrip, SimVehicle } from '../model.ts';
import { objectBody, specRoute, type DriverAssociation, type SpecState } from './state.ts';
import { coordinatesOf, engineType, lastEventAt, tripAtOrBefore, wireTs } from '../wire.ts';
import { batteryAt } from '../routes/ev.ts';
import { vextAt } from './events.ts';
import {
  ApiError,
  boolFilter,
  intFilter,
  notFound,
  vehicleByRegistration,
  type Route,
  type RouteContext,
} from '../routes/common.ts';

export type DriverSource = 'tag' | 'app' | 'linkage' | 'default';

/** The vehicle's default driver: a fixed active driver per vehicle; every fifth vehicle has none. */
export function defaultDriverOf(fleet: Fleet, v: SimVehicle): SimDriver | null {
  return regularDriverOf(
    vehiclePosition(fleet, v),
    fleet.drivers.filter((d) => !d.deactivated),
  );
}

const tripAt = (trips: readonly SimTrip[], ms: number): SimTrip | undefined => {
  const t = tripAtOrBefore(trips, ms);
  return t && ms < t.end_ms ? t : undefined;
};

export function currentDriver(
  fleet: Fleet,
  spec: SpecState,
  v: SimVehicle,
  now: number,
): { driver_id: string; source: DriverSource } | null {
  const h = horizonOf(v, now);
  const trips = fleet.tripsOf(v.vehicle_id);
  const trip = tripAt(trips, h);
  const candidates: { driver_id: string; at: number; source: DriverSource }[] = [];
  // A trip that records the vehicle's default driver (an ordinary vehicle's trips) is that
  // association, not a tag read: it yields to a tag, an app assignment or a linkage.
  if (trip?.driver_id && trip.driver_id !== defaultDriverOf(fleet, v)?.driver_id)
    candidates.push({ driver_id: trip.driver_id, at: trip.start_ms, source: 'tag' });
  const mine = (a: DriverAssociation) => a.vehicle_id === v.vehicle_id && a.at_ms <= h;
  if (trip)
    for (const r of spec.tagReads.filter(mine))
      if (r.at_ms >= trip.start_ms) candidates.push({ driver_id: r.driver_id, at: r.at_ms, source: 'tag' });
  for (const a of spec.appAssignments.filter(mine)) {
    const offSince = trips.some((t) => t.end_ms > a.at_ms && t.end_ms <= h);
    if (!offSince) candidates.push({ driver_id: a.driver_id, at: a.at_ms, source: 'app' });
  }
  const link = spec.linkages.get(v.vehicle_id);
  if (link) candidates.push({ driver_id: link.driver_id, at: link.at_ms, source: 'linkage' });
  const best = candidates.reduce<(typeof candidates)[number] | null>(
    (b, c) => (b === null || c.at >= b.at ? c : b),
    null,
  );
  if (best) return { driver_id: best.driver_id, source: best.source };
  const d = defaultDriverOf(fleet, v);
  return d ? { driver_id: d.driver_id, source: 'default' } : null;
}

function statusOf(ctx: RouteContext, spec: SpecState, v: SimVehicle, inKm: boolean) {
  const { fleet } = ctx;
  const h = horizonOf(v, ctx.now);
  const zone = fleet.timezone;
  const trip = tripAtOrBefore(fleet.tripsOf(v.vehicle_id), h);
  const driving = trip !== undefined && trip.end_ms > h;
  const eventMs = lastEventAt(fleet, v, h);
  const odometer = fleet.odometerAt(v.vehicle_id, eventMs);
  const cur = currentDriver(fleet, spec, v, ctx.now);
  const driver = cur ? fleet.drivers.find((d) => d.driver_id === cur.driver_id) : undefined;
  const place = trip ? (driving ? trip.start_location : trip.end_location) : 'Depot';
  const level = fleet.fuelLevelAt(v.vehicle_id, eventMs);
  const counter = fleet.fuelCounterAt(v.vehicle_id, eventMs);
  const ev = v.powertrain === 'electric' ? batteryAt(fleet, v, eventMs) : null;
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
    rpm: driving && v.powertrain !== 'electric' ? 1800 : 0,
    vext: vextAt(fleet, v, eventMs, driving),
    driver:
      cur && driver
        ? {
            driver_id: driver.driver_id,
            first_name: driver.first_name,
            last_name: driver.last_name,
            association: cur.source,
          }
        : null,
    fuel: {
      updated: wireTs(eventMs, zone),
      level: level === null ? null : Math.round(level * 10) / 10,
      percentage_left: level === null || !v.tank_l ? null : Math.round((level / v.tank_l) * 100),
      total_consumed: counter === null ? null : Math.round(counter * 100) / 100,
    },
    electric: ev
      ? {
          battery_percentage_left: Math.round(ev.soc),
          battery_ts: wireTs(eventMs, zone),
          charging_status: ev.charging,
          charging_status_ts: wireTs(ev.chargingSinceMs, zone),
        }
      : null,
    location: {
      updated: wireTs(eventMs, zone),
      ...coordinatesOf(place),
      gps_fix_type: 3,
      position_description: place,
      geofence_ids: [],
    },
  };
}

function linkageWire(fleet: Fleet, l: DriverAssociation) {
  const v = fleet.vehicles.find((x) => x.vehicle_id === l.vehicle_id);
  return {
    vehicle_id: l.vehicle_id,
    registration: v?.registration ?? null,
    driver_id: l.driver_id,
    linked_ts: wireTs(l.at_ms, fleet.timezone),
  };
}

export const statusRoutes: Route[] = [
  specRoute('GET', '/vehicles/status', (ctx) => {
    const q = ctx.query;
    const id = intFilter(q, 'filter[vehicle_id]', 400);
    const reg = q.get('filter[registration]')?.toLowerCase();
    const engine = q.get('filter[engine_type]')?.toLowerCase();
    const ignition = boolFilter(q, 'filter[ignition]', 400);
    const inKm = q.get('odometer_in_km') === 'true';
    const data = ctx.fleet.vehicles
      .filter(
        (v) =>
          (id === undefined || v.vehicle_id === id) &&
          (!reg || v.registration.toLowerCase().includes(reg)) &&
          (!engine || engineType(v).toLowerCase().includes(engine)),
      )
      .map((v) => statusOf(ctx, ctx.spec, v, inKm))
      .filter((s) => ignition === undefined || s.ignition === ignition);
    return { kind: 'vehicle_status', body: { data } };
  }),
  specRoute('POST', '/vehicles/{registration}/driver-linkage', (ctx) => {
    const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
    const driverId = objectBody(ctx).driver_id;
    const d = ctx.fleet.drivers.find((x) => x.driver_id === driverId && !x.deactivated);
    if (typeof driverId !== 'string' || !d)
      throw new ApiError(422, 'The driver_id field is required and must name an active driver.');
    const link: DriverAssociation = { vehicle_id: v.vehicle_id, driver_id: d.driver_id, at_ms: ctx.now };
    ctx.spec.linkages.set(v.vehicle_id, link);
    return { body: { data: linkageWire(ctx.fleet, link) } };
  }),
  specRoute('DELETE', '/vehicles/{registration}/driver-linkage', (ctx) => {
    const v = vehicleByRegistration(ctx.fleet, ctx.params.registration);
    if (!ctx.spec.linkages.delete(v.vehicle_id)) throw notFound('Driver linkage');
    return { body: { data: {} } };
  }),
  specRoute('GET', '/vehicles/driver-linkages', (ctx) => ({
    body: { data: [...ctx.spec.linkages.values()].map((l) => linkageWire(ctx.fleet, l)) },
  })),
];
