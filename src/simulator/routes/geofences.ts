/**
 * GET /geofences, GET /geofences/{geofence_id}, GET /geofences/visits (contract "Geofences with
 * the toll flag"). A visit is listed when its enter time is in the range and the vehicle has left
 * the geofence by now (and that has reached the API). No visit id.
 */
import { sliceByKey, WindowRows } from '../lookup.ts';
import type { SimGeofence, SimVehicle, SimVisit } from '../model.ts';
import { geofenceWire, visitWire } from '../wire.ts';
import {
  ApiError,
  CAP_24_HOURS_S,
  boolFilter,
  intFilter,
  notFound,
  pageOf,
  paginate,
  paginateAs,
  parseWindow,
  type Reply,
  type Route,
  type RouteContext,
} from './common.ts';

const SORTS = ['enter_timestamp', 'exit_timestamp', 'duration_total', 'vehicle_id', 'registration'] as const;
type SortKey = (typeof SORTS)[number];

/** `enter + 24 h − 1 s` on the wall clock, when filter[exit_timestamp] is left out. */
function defaultExit(enter: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(enter);
  if (!m) return undefined;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) + 86_399_000;
  return new Date(wall).toISOString().slice(0, 19).replace('T', ' ');
}

const kept = new WindowRows<{ visit: SimVisit; v: SimVehicle }>(
  (r) => r.v,
  (r) => r.visit.exit_ms,
);

function visits(ctx: RouteContext): Reply {
  const { fleet, query, now } = ctx;
  const enter = query.get('filter[enter_timestamp]') ?? undefined;
  let exit = query.get('filter[exit_timestamp]') ?? undefined;
  if (!exit && enter) exit = defaultExit(enter);
  const w = parseWindow(
    enter,
    exit,
    ['filter[enter_timestamp]', 'filter[exit_timestamp]'],
    fleet.timezone,
    CAP_24_HOURS_S,
  );
  const isToll = boolFilter(query, 'filter[is_toll]');
  const vehicleId = intFilter(query, 'filter[vehicle_id]');
  const reg = query.get('filter[registration]') || undefined;
  const geofenceId = query.get('filter[geofence_id]') || undefined;
  const sortBy = (query.get('sort_by') || 'enter_timestamp') as SortKey;
  if (!SORTS.includes(sortBy)) throw new ApiError(422, `The sort_by must be one of ${SORTS.join(', ')}.`);
  const order = query.get('sort_order') || 'asc';
  if (order !== 'asc' && order !== 'desc') throw new ApiError(422, 'The sort_order must be asc or desc.');
  const page = pageOf(query);
  const byId = new Map<string, SimGeofence>(fleet.geofences.map((g) => [g.geofence_id, g]));
  const key = (x: SimVisit): number | string =>
    sortBy === 'enter_timestamp'
      ? x.enter_ms
      : sortBy === 'exit_timestamp'
        ? x.exit_ms
        : sortBy === 'duration_total'
          ? x.exit_ms - x.enter_ms
          : sortBy === 'vehicle_id'
            ? x.vehicle_id
            : x.registration;
  const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);
  const sign = order === 'asc' ? 1 : -1;
  // The visits entering in the window (each vehicle's by binary search), filtered and sorted once
  // per query and kept across its pages; each page keeps those whose exit has reached the API.
  const gather = () =>
    fleet.vehicles
      .filter(
        (v) =>
          (vehicleId === undefined || v.vehicle_id === vehicleId) &&
          (reg === undefined || v.registration === reg),
      )
      .flatMap((v) =>
        sliceByKey(fleet.visitsOf(v.vehicle_id), w.startMs, w.endMs, (x) => x.enter_ms)
          .filter(
            (visit) =>
              (geofenceId === undefined || visit.geofence_id === geofenceId) &&
              (isToll === undefined || (byId.get(visit.geofence_id)?.is_toll ?? false) === isToll),
          )
          .map((visit) => ({ visit, v })),
      )
      .sort(
        ({ visit: a }, { visit: b }) =>
          sign * cmp(key(a), key(b)) ||
          cmp(a.enter_ms, b.enter_ms) ||
          cmp(a.vehicle_id, b.vehicle_id) ||
          cmp(a.geofence_id, b.geofence_id),
      );
  const queryKey = JSON.stringify([w.startMs, w.endMs, isToll, vehicleId, reg, geofenceId, sortBy, order]);
  const rows = kept.visible(fleet, queryKey, now, gather);
  return {
    kind: 'visit',
    body: paginateAs(rows, page, ({ visit }) =>
      visitWire(visit, byId.get(visit.geofence_id), fleet.timezone),
    ),
  };
}

export const geofenceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/geofences',
    handler: (ctx) => {
      const isToll = boolFilter(ctx.query, 'filter[is_toll]');
      const name = ctx.query.get('filter[name]')?.toLowerCase();
      const page = pageOf(ctx.query);
      const items = ctx.fleet.geofences
        .filter(
          (g) =>
            (isToll === undefined || g.is_toll === isToll) && (!name || g.name.toLowerCase().includes(name)),
        )
        .map(geofenceWire);
      return { kind: 'geofence', body: paginate(items, page) };
    },
  },
  { method: 'GET', path: '/geofences/visits', handler: visits },
  {
    method: 'GET',
    path: '/geofences/{geofence_id}',
    handler: (ctx) => {
      const g = ctx.fleet.geofences.find((x) => x.geofence_id === ctx.params.geofence_id);
      if (!g) throw notFound('Geofence');
      return { kind: 'geofence', body: { data: geofenceWire(g) } };
    },
  },
];
