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

interface Row {
  t: SimTrip;
  v: SimVehicle;
}

/**
 * Trips overlapping a window, sorted, whether visible yet or not: a sync asks for the same window
 * page after page, so the fleet-wide scan and sort (~10 ms for a month of 200 vehicles) is done
 * once per window, and each page only filters by what has reached the API by now.
 */
const sortedCache = new WeakMap<Fleet, Map<string, Row[]>>();

function overlapping(fleet: Fleet, vehicles: readonly SimVehicle[], w: Window): Row[] {
  let perFleet = sortedCache.get(fleet);
  if (!perFleet) sortedCache.set(fleet, (perFleet = new Map()));
  const key = `${vehicles.length === fleet.vehicles.length ? '*' : vehicles.map((v) => v.vehicle_id).join(',')}|${w.startMs}|${w.endMs}`;
  let rows = perFleet.get(key);
  if (!rows) {
    rows = vehicles
      .flatMap((v) =>
        fleet
          .tripsOf(v.vehicle_id)
          .filter((t) => t.start_ms < w.endMs && t.end_ms > w.startMs)
          .map((t) => ({ t, v })),
      )
      .sort(
        (a, b) =>
          a.t.start_ms - b.t.start_ms || (a.t.trip_id < b.t.trip_id ? -1 : a.t.trip_id > b.t.trip_id ? 1 : 0),
      );
    if (perFleet.size >= 8) perFleet.delete(perFleet.keys().next().value!);
    perFleet.set(key, rows);
  }
  return rows;
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
  const rows = overlapping(fleet, vehicles, w).filter((r) => r.t.end_ms <= horizonOf(r.v, ctx.now));
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
