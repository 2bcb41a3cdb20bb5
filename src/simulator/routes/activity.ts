/**
 * GET /vehicles/activity (one local day per request, `filter[date]` YYYY-MM-DD, every vehicle,
 * paginated; validation answers 400 as on the other /vehicles operations) and GET /drivers
 * (every driver of the fleet, active or not, with its groups). Field names are the wire's
 * (fleet-api-wire-notes.md §5.9): `idle_time_seconds`, `driving_time_seconds`,
 * `total_working_hours` "HH:MM" (first ignition on to last ignition off), `total_break_hours`.
 */
import { isCalendarDay, localDayBounds } from '../../time.ts';
import { dayActivity } from '../gen/activity.ts';
import type { SimDriver, SimVehicle } from '../model.ts';
import { wireTs } from '../wire.ts';
import { horizonOf } from '../lookup.ts';
import { ApiError, pageOf, paginate, paginateAs, type Route, type RouteContext } from './common.ts';

const hhmm = (s: number) => {
  const m = Math.round(s / 60);
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};

function activity(ctx: RouteContext) {
  const day = ctx.query.get('filter[date]');
  if (!day) throw new ApiError(400, 'The filter[date] field is required.');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !isCalendarDay(day))
    throw new ApiError(400, 'The filter[date] must be a date in the format YYYY-MM-DD.');
  const { fleet } = ctx;
  const byId = new Map(fleet.drivers.map((d) => [d.driver_id, d]));
  const bounds = localDayBounds(day, fleet.timezone);
  // One item per vehicle, computed for the page's vehicles only.
  const item = (v: SimVehicle) => {
    const a = dayActivity(fleet, v, day, horizonOf(v, ctx.now), bounds);
    const spanS = a.firstOnMs === null || a.lastOffMs === null ? 0 : (a.lastOffMs - a.firstOnMs) / 1000;
    return {
      vehicle_id: v.vehicle_id,
      registration: v.registration,
      date: day,
      first_ignition_on: a.firstOnMs === null ? null : wireTs(a.firstOnMs, fleet.timezone),
      last_ignition_off: a.lastOffMs === null ? null : wireTs(a.lastOffMs, fleet.timezone),
      idle_time_seconds: a.idleS,
      driving_time_seconds: a.drivingS,
      total_working_hours: hhmm(spanS),
      total_break_hours: hhmm(Math.max(0, spanS - a.idleS - a.drivingS)),
      drivers: a.driverIds.map((id) => ({
        driver_id: id,
        first_name: byId.get(id)?.first_name ?? null,
        last_name: byId.get(id)?.last_name ?? null,
      })),
    };
  };
  return { kind: 'activity' as const, body: paginateAs(fleet.vehicles, pageOf(ctx.query, 400), item) };
}

export const driverWire = (d: SimDriver) => ({
  driver_id: d.driver_id,
  first_name: d.first_name,
  last_name: d.last_name,
  status: d.deactivated ? 'inactive' : 'active',
  license_type_ids: d.license_type_ids,
  custom_fields: {},
  groups: d.department ? [{ name: d.department }] : [],
});

export const activityRoutes: Route[] = [
  { method: 'GET', path: '/vehicles/activity', handler: activity },
  {
    method: 'GET',
    path: '/drivers',
    handler: (ctx) => ({
      kind: 'driver',
      body: paginate(ctx.fleet.drivers.map(driverWire), pageOf(ctx.query)),
    }),
  },
];
