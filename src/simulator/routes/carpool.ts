/**
 * Carpool, exactly as the contract and the spec's PATCH rules: bookings as of now, vehicles and
 * drivers with computed setup_status, booking rules, and the driver PATCH / DELETE with every rule
 * (main account only; all-false → 422 with nothing changed; a flag set true switches its account
 * setting on; deactivated → 404 on PATCH but accepted by DELETE; DELETE's open-bookings guard).
 */
import { BOOKING_STATUSES, type BookingStatus } from '../../api/types.ts';
import { perKey, sliceByKey } from '../lookup.ts';
import type { BookingView, CarpoolSettings, SimBooking, SimDriver } from '../model.ts';
import { bookingWire, carpoolDriverWire, carpoolVehicleWire } from '../wire.ts';
import {
  ApiError,
  CAP_31_DAYS_S,
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

/** Statuses that block DELETE of the booking's driver (contract). */
export const OPEN_BOOKING_STATUSES: ReadonlySet<BookingStatus> = new Set<BookingStatus>([
  'BOOKING_STATUS_REQUESTED',
  'BOOKING_STATUS_APPROVED',
  'BOOKING_STATUS_EXPIRING_APPROVAL',
  'BOOKING_STATUS_ACTIVE',
  'BOOKING_STATUS_ACTIVE_ALMOST_LATE',
  'BOOKING_STATUS_ACTIVE_LATE',
]);

const FLAGS = ['can_book_carpool', 'allow_system_auto_booking', 'allow_specific_vehicle_booking'] as const;
const SETTING_OF: Record<(typeof FLAGS)[number], keyof CarpoolSettings> = {
  can_book_carpool: 'drivers_can_book_carpool',
  allow_system_auto_booking: 'drivers_can_auto_booking',
  allow_specific_vehicle_booking: 'drivers_can_book_specific_vehicles',
};

function mainOnly(ctx: RouteContext): void {
  if (ctx.isSubuser) throw new ApiError(403, 'This operation is only available to the main account.');
}

function bookingsAsOf(ctx: RouteContext): BookingView[] {
  return ctx.fleet.bookings
    .filter((b) => b.created_ms <= ctx.now)
    .map((b) => ctx.fleet.bookingAt(b, ctx.now));
}

/**
 * The fleet's bookings by id (in the fleet's order), and ordered by start (ties in the fleet's
 * order) with the longest duration: the bookings overlapping a window are among those starting
 * from the window's start less that duration up to its end.
 */
const bookingIndex = perKey((bookings: readonly SimBooking[]) => {
  const byId = new Map<number, SimBooking[]>();
  for (const b of bookings) {
    let list = byId.get(b.booking_id);
    if (!list) byId.set(b.booking_id, (list = []));
    list.push(b);
  }
  const byStart = [...bookings].sort((a, b) => a.start_ms - b.start_ms);
  const longest = byStart.reduce((m, b) => Math.max(m, b.end_ms - b.start_ms), 0);
  return { byId, byStart, longest };
});

function listBookings(ctx: RouteContext): Reply {
  const { query, fleet } = ctx;
  const w = parseWindow(
    query.get('filter[start_timestamp]') ?? undefined,
    query.get('filter[end_timestamp]') ?? undefined,
    ['filter[start_timestamp]', 'filter[end_timestamp]'],
    fleet.timezone,
    CAP_31_DAYS_S,
  );
  const vehicleId = intFilter(query, 'filter[vehicle_id]');
  const driverId = query.get('filter[driver_id]') || undefined;
  const status = query.get('filter[booking_status]') || undefined;
  if (status !== undefined && !(BOOKING_STATUSES as readonly string[]).includes(status))
    throw new ApiError(422, 'The selected filter[booking_status] is invalid.');
  const page = pageOf(query);
  const { byStart, longest } = bookingIndex(fleet.bookings);
  const rows = sliceByKey(byStart, w.startMs - longest, w.endMs, (b) => b.start_ms)
    .filter(
      (b) =>
        b.created_ms <= ctx.now &&
        b.end_ms >= w.startMs &&
        (vehicleId === undefined || b.vehicle_id === vehicleId) &&
        (driverId === undefined || b.driver_id === driverId),
    )
    .map((b) => fleet.bookingAt(b, ctx.now))
    .filter((b) => status === undefined || b.status === status)
    .sort((a, b) => a.booking.start_ms - b.booking.start_ms || a.booking.booking_id - b.booking.booking_id);
  return { kind: 'booking', body: paginateAs(rows, page, (b) => bookingWire(b, fleet.timezone)) };
}

/** Validates a PATCH body: the five known fields with their types, at least one present. */
function driverPatch(body: unknown): Partial<SimDriver> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(422, 'The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  const out: Partial<SimDriver> = {};
  for (const f of FLAGS) {
    if (!(f in b)) continue;
    if (typeof b[f] !== 'boolean') throw new ApiError(422, `The ${f} field must be true or false.`);
    out[f] = b[f];
  }
  if ('license_type_ids' in b) {
    const v = b.license_type_ids;
    if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x)))
      throw new ApiError(422, 'The license_type_ids field must be a list of integers.');
    out.license_type_ids = [...(v as number[])];
  }
  if ('special_licenses' in b) {
    const v = b.special_licenses;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
      throw new ApiError(422, 'The special_licenses field must be a list of strings.');
    out.special_licenses = [...(v as string[])];
  }
  if (Object.keys(out).length === 0)
    throw new ApiError(
      422,
      'At least one of can_book_carpool, allow_system_auto_booking, allow_specific_vehicle_booking, license_type_ids, special_licenses is required.',
    );
  return out;
}

function patchDriver(ctx: RouteContext): Reply {
  mainOnly(ctx);
  const { fleet } = ctx;
  const d = fleet.drivers.find((x) => x.driver_id === ctx.params.driver_id);
  if (!d || d.deactivated) throw notFound('Carpool driver');
  const patch = driverPatch(ctx.body);
  const merged = { ...d, ...patch };
  if (FLAGS.every((f) => !merged[f]))
    throw new ApiError(
      422,
      'An update cannot leave can_book_carpool, allow_system_auto_booking and allow_specific_vehicle_booking all false; remove the driver with DELETE instead.',
    );
  Object.assign(d, patch);
  for (const f of FLAGS) if (patch[f] === true) fleet.carpoolSettings[SETTING_OF[f]] = true;
  return { kind: 'carpool_driver', body: { data: carpoolDriverWire(d, fleet.carpoolSettings) } };
}

function deleteDriver(ctx: RouteContext): Reply {
  mainOnly(ctx);
  const { fleet } = ctx;
  const i = fleet.drivers.findIndex((x) => x.driver_id === ctx.params.driver_id);
  if (i < 0) throw notFound('Carpool driver');
  const open = bookingsAsOf(ctx).find(
    (b) => b.booking.driver_id === ctx.params.driver_id && OPEN_BOOKING_STATUSES.has(b.status),
  );
  if (open)
    throw new ApiError(409, `The driver has an open booking (${open.booking.booking_id}, ${open.status}).`, {
      data: null,
    });
  fleet.drivers.splice(i, 1);
  return { body: { data: {} } };
}

export const carpoolRoutes: Route[] = [
  { method: 'GET', path: '/carpool/bookings', handler: listBookings },
  {
    method: 'GET',
    path: '/carpool/bookings/{booking_id}',
    handler: (ctx) => {
      const id = Number(ctx.params.booking_id);
      const b = bookingIndex(ctx.fleet.bookings)
        .byId.get(id)
        ?.find((x) => x.created_ms <= ctx.now);
      if (!b) throw notFound('Booking');
      return {
        kind: 'booking',
        body: { data: bookingWire(ctx.fleet.bookingAt(b, ctx.now), ctx.fleet.timezone) },
      };
    },
  },
  {
    method: 'GET',
    path: '/carpool/vehicles',
    handler: (ctx) => ({
      kind: 'carpool_vehicle',
      body: paginate(ctx.fleet.carpoolVehicles.map(carpoolVehicleWire), pageOf(ctx.query)),
    }),
  },
  {
    method: 'GET',
    path: '/carpool/drivers',
    handler: (ctx) => ({
      kind: 'carpool_driver',
      body: paginate(
        ctx.fleet.drivers
          .filter((d) => !d.deactivated)
          .map((d) => carpoolDriverWire(d, ctx.fleet.carpoolSettings)),
        pageOf(ctx.query),
      ),
    }),
  },
  { method: 'PATCH', path: '/carpool/drivers/{driver_id}', handler: patchDriver },
  { method: 'DELETE', path: '/carpool/drivers/{driver_id}', handler: deleteDriver },
  {
    method: 'GET',
    path: '/carpool/rules',
    handler: (ctx) => ({
      kind: 'booking_rule',
      body: { data: ctx.fleet.bookingRules.map((r) => ({ ...r })) },
    }),
  },
  {
    method: 'PATCH',
    path: '/carpool/rules/{booking_rule_id}',
    handler: (ctx) => {
      const id = Number(ctx.params.booking_rule_id);
      const rule = ctx.fleet.bookingRules.find((r) => r.booking_rule_id === id);
      if (!rule) throw notFound('Booking rule');
      const b = ctx.body;
      if (typeof b !== 'object' || b === null || Array.isArray(b) || !('value' in b))
        throw new ApiError(422, 'The value field is required.');
      rule.value = (b as { value: unknown }).value;
      return { kind: 'booking_rule', body: { data: { ...rule } } };
    },
  },
];
