/**
 * GET /vehicles and GET /vehicles/{registration}/odometer; validation answers 400, as the
 * published spec lists for those operations. The vehicle status, events, VEXT, EV, vision and
 * command endpoints live in status.ts, events.ts, ev.ts, vision.ts and commands.ts.
 */
import type { SimVehicle } from '../model.ts';
import { horizonOf, odometerEventsOf } from '../lookup.ts';
import { lastEventAt, terminalAt, vehicleWire, wireTs } from '../wire.ts';
import {
  CAP_31_DAYS_S,
  intFilter,
  pageOf,
  paginateAs,
  parseWindow,
  vehicleByRegistration,
  type Route,
  type RouteContext,
} from './common.ts';

function filterVehicles(ctx: RouteContext, status: number): readonly SimVehicle[] {
  const id = intFilter(ctx.query, 'filter[vehicle_id]', status);
  const reg = ctx.query.get('filter[registration]')?.toLowerCase();
  if (id === undefined && !reg) return ctx.fleet.vehicles;
  return ctx.fleet.vehicles.filter(
    (v) => (id === undefined || v.vehicle_id === id) && (!reg || v.registration.toLowerCase().includes(reg)),
  );
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
  const events = odometerEventsOf(fleet, v.vehicle_id).filter(
    (e) => e.at_ms >= w.startMs && e.at_ms < readAt,
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

export const vehicleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/vehicles',
    handler: (ctx) => ({
      kind: 'vehicle',
      body: paginateAs(filterVehicles(ctx, 400), pageOf(ctx.query, 400), (v) => vehicleWire(v, ctx.now)),
    }),
  },
  { method: 'GET', path: '/vehicles/{registration}/odometer', handler: odometer },
];
