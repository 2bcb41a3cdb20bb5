/**
 * GET /trips and GET /trips/{registration}: trips overlapping the window, returned whole, and only
 * once they have ended and reached the API (report delay). Window at most 31 days; ordered by
 * start then trip_id; paginated. Private trips only with `incl_private=true` (a reduced data set,
 * see tripWire).
 */
import type { Fleet, SimTrip, SimVehicle } from '../model.ts';
import { tripsOverlapping } from '../gen/truth.ts';
import { WindowRows } from '../lookup.ts';
import { tripWire } from '../wire.ts';
import { tripTypeOf } from '../gen/trip-traits.ts';
import {
  CAP_31_DAYS_S,
  pageOf,
  paginateAs,
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
 * page after page, so the fleet-wide gathering and sort (~10 ms for a month of 200 vehicles) is
 * done once per window, and each page only keeps what has reached the API by now. Each vehicle's
 * trips of the window are found by binary search (its trips are ordered and do not overlap).
 */
const kept = new WindowRows<Row>(
  (r) => r.v,
  (r) => r.t.end_ms,
);

function visibleOverlapping(
  fleet: Fleet,
  vehicles: readonly SimVehicle[],
  w: Window,
  now: number,
): readonly Row[] {
  const key = `${vehicles.length === fleet.vehicles.length ? '*' : vehicles.map((v) => v.vehicle_id).join(',')}|${w.startMs}|${w.endMs}`;
  return kept.visible(fleet, key, now, () =>
    vehicles
      .flatMap((v) =>
        tripsOverlapping(fleet.tripsOf(v.vehicle_id), w.startMs, w.endMs).map((t) => ({ t, v })),
      )
      .sort(
        (a, b) =>
          a.t.start_ms - b.t.start_ms || (a.t.trip_id < b.t.trip_id ? -1 : a.t.trip_id > b.t.trip_id ? 1 : 0),
      ),
  );
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
  // Private trips only when asked for (`incl_private=true`), as the real API.
  const all = visibleOverlapping(fleet, vehicles, w, ctx.now);
  const rows =
    query.get('incl_private') === 'true' ? all : all.filter(({ t }) => tripTypeOf(t) !== 'Private');
  return { kind: 'trip', body: paginateAs(rows, page, ({ t, v }) => tripWire(t, v, fleet)) };
}

export const tripRoutes: Route[] = [
  { method: 'GET', path: '/trips', handler: (ctx) => trips(ctx, ctx.fleet.vehicles) },
  {
    method: 'GET',
    path: '/trips/{registration}',
    handler: (ctx) => trips(ctx, [vehicleByRegistration(ctx.fleet, ctx.params.registration)]),
  },
];
