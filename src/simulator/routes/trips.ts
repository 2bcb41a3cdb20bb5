/**
 * GET /trips and GET /trips/{registration}: trips overlapping the window, returned whole, and only
 * once they have ended and reached the API (report delay). Window at most 31 days; ordered by
 * start then trip_id; paginated.
 */
import type { Fleet, SimTrip, SimVehicle } from '../model.ts';
import { tripWire } from '../wire.ts';
import {
  CAP_31_DAYS_S,
  horizonOf,
  pageOf,
  paginate,
  parseWindow,
  vehicleByRegistration,
  type Reply,
  type RouteContext,
  type Route,
  type Window,
} from './common.ts';

export function visibleTrips(fleet: Fleet, v: SimVehicle, w: Window, now: number): SimTrip[] {
  const h = horizonOf(v, now);
  return fleet
    .tripsOf(v.vehicle_id)
    .filter((t) => t.start_ms < w.endMs && t.end_ms > w.startMs && t.end_ms <= h);
}

function trips(ctx: RouteContext, vehicles: readonly SimVehicle[]): Reply {
  const { fleet, query } = ctx;
  const w = parseWindow(
    query.get('start_timestamp') ?? undefined,
    query.get('end_timestamp') ?? undefined,
    ['start_timestamp', 'end_timestamp'],
    fleet.timezone,
    CAP_31_DAYS_S,
  );
  const page = pageOf(query);
  const rows = vehicles
    .flatMap((v) => visibleTrips(fleet, v, w, ctx.now).map((t) => ({ t, v })))
    .sort(
      (a, b) =>
        a.t.start_ms - b.t.start_ms || (a.t.trip_id < b.t.trip_id ? -1 : a.t.trip_id > b.t.trip_id ? 1 : 0),
    );
  const p = paginate(rows, page);
  return { kind: 'trip', body: { data: p.data.map(({ t, v }) => tripWire(t, v, fleet)), meta: p.meta } };
}

export const tripRoutes: Route[] = [
  { method: 'GET', path: '/trips', handler: (ctx) => trips(ctx, ctx.fleet.vehicles) },
  {
    method: 'GET',
    path: '/trips/{registration}',
    handler: (ctx) => trips(ctx, [vehicleByRegistration(ctx.fleet, ctx.params.registration)]),
  },
];
