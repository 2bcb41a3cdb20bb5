/**
 * generateFleet: the simulator's deterministic world. Same options → byte-for-byte the same
 * fleet. Vehicles, geofences, drivers and bookings are built eagerly (small); each vehicle's
 * trips, odometer/fuel series and visits are built on first use from a sub-seed of (seed, vehicle
 * index), so a vehicle's data never depends on how many vehicles the fleet has.
 */
import { FleetsyncError } from '../errors.ts';
import { isCalendarDay, isValidTimeZone } from '../time.ts';
import { carpoolHistory, type CarpoolHistory } from './gen/bookings.ts';
import { buildCalendar, defaultEndDay } from './gen/calendar.ts';
import {
  isBookable,
  makeBookingRules,
  makeCarpoolSettings,
  makeCarpoolVehicle,
  makeDrivers,
} from './gen/carpool.ts';
import { makePlaces } from './gen/places.ts';
import { rngFor } from './gen/prng.ts';
import {
  buildSeries,
  fuelCounterOf,
  fuelLevelOf,
  lastAtOrBefore,
  odometerOf,
  type PlannedOdometerEvent,
  type VehicleSeries,
} from './gen/series.ts';
import { ordinaryTrips, regularDriverOf } from './gen/trips.ts';
import { makeTruth } from './gen/truth.ts';
import { makeVehicle, FIRST_VEHICLE_ID, HOUR, roleOf, type VehicleRole } from './gen/vehicles.ts';
import { visitsOfTrips } from './gen/visits.ts';
import type {
  BookingView,
  Fleet,
  FleetOptions,
  FuelCounterReset,
  OdometerEvent,
  SimBooking,
  SimCarpoolVehicle,
  SimVehicle,
  SimVisit,
} from './model.ts';

export { defaultEndDay } from './gen/calendar.ts';
export { findLandmarks, type FleetLandmarks } from './gen/landmarks.ts';
export { carpoolDriverSetupStatus, carpoolVehicleSetupStatus, BOOKING_TRANSITIONS } from './gen/carpool.ts';

export const DEFAULT_FLEET_OPTIONS: Readonly<Omit<FleetOptions, 'endDay'>> = Object.freeze({
  seed: 42,
  vehicles: 20,
  days: 120,
  timezone: 'Australia/Sydney',
});

export function resolveFleetOptions(opts: Partial<FleetOptions> = {}, nowMs = Date.now()): FleetOptions {
  const timezone = opts.timezone ?? DEFAULT_FLEET_OPTIONS.timezone;
  const o: FleetOptions = {
    seed: opts.seed ?? DEFAULT_FLEET_OPTIONS.seed,
    vehicles: opts.vehicles ?? DEFAULT_FLEET_OPTIONS.vehicles,
    days: opts.days ?? DEFAULT_FLEET_OPTIONS.days,
    timezone,
    endDay: opts.endDay ?? (isValidTimeZone(timezone) ? defaultEndDay(nowMs, timezone) : ''),
    ...(opts.silence ? { silence: opts.silence } : {}),
    ...(opts.odometerEvents ? { odometerEvents: opts.odometerEvents } : {}),
  };
  const bad: string[] = [];
  if (!Number.isSafeInteger(o.seed)) bad.push(`seed must be an integer (got ${o.seed})`);
  if (!Number.isInteger(o.vehicles) || o.vehicles < 1 || o.vehicles > 9999)
    bad.push(`vehicles must be 1–9999 (got ${o.vehicles})`);
  if (!Number.isInteger(o.days) || o.days < 1 || o.days > 3660)
    bad.push(`days must be 1–3660 (got ${o.days})`);
  if (!isValidTimeZone(o.timezone)) bad.push(`timezone is not an IANA zone: ${o.timezone}`);
  if (!isCalendarDay(o.endDay)) bad.push(`endDay must be YYYY-MM-DD (got ${o.endDay})`);
  const q = o.silence;
  if (
    q &&
    !(
      Number.isInteger(q.vehicleIndex) &&
      q.vehicleIndex >= 0 &&
      q.vehicleIndex < o.vehicles &&
      Number.isInteger(q.fromDay) &&
      Number.isInteger(q.days) &&
      q.days >= 1 &&
      q.fromDay >= 0 &&
      q.fromDay + q.days <= o.days &&
      q.uploadAfterMs >= 0
    )
  )
    bad.push(`silence must name a vehicle index and whole days inside history (got ${JSON.stringify(q)})`);
  for (const e of o.odometerEvents ?? [])
    if (!(
      Number.isInteger(e.vehicleIndex) &&
      e.vehicleIndex >= 0 &&
      e.vehicleIndex < o.vehicles &&
      Number.isInteger(e.day) &&
      e.day >= 0 &&
      e.day < o.days &&
      (e.hour === undefined || (e.hour >= 0 && e.hour < 24))
    ))
      bad.push(
        `odometerEvents must name a vehicle index, a history day and an hour (got ${JSON.stringify(e)})`,
      );
  if (bad.length)
    throw new FleetsyncError('E_USAGE', `invalid fleet options: ${bad.join('; ')}`, { details: { bad } });
  return o;
}

interface Slot {
  role: VehicleRole;
  vehicle: SimVehicle;
  carpool: SimCarpoolVehicle | null;
  history: CarpoolHistory | null;
  planned: PlannedOdometerEvent[];
  counterResetMs: number | null;
  series?: VehicleSeries;
  visits?: SimVisit[];
}

/**
 * Builds the fleet. `nowMs` only picks the default endDay (yesterday in the zone); pass
 * `endDay` for a reproducible fleet.
 */
export function generateFleet(opts: Partial<FleetOptions> = {}, nowMs = Date.now()): Fleet {
  const options = resolveFleetOptions(opts, nowMs);
  const { seed, timezone } = options;
  const cal = buildCalendar(options.endDay, options.days, timezone);
  const places = makePlaces(seed);
  const drivers = makeDrivers(seed);
  const activeDrivers = drivers.filter((d) => !d.deactivated);
  const threeAm = (day: number | null) => (day === null ? null : cal.days[day]!.startMs + 3 * HOUR);

  const slots: Slot[] = [];
  for (let i = 0; i < options.vehicles; i++) {
    const role = roleOf(seed, i, options.days);
    const vehicle = makeVehicle(seed, role, cal.startMs);
    const planned: PlannedOdometerEvent[] = [];
    const reset = threeAm(role.odometerResetDay);
    if (reset !== null) planned.push({ at_ms: reset, kind: 'odometer_reset' });
    const swap = threeAm(role.trackerChangeDay);
    if (swap !== null) {
      planned.push({ at_ms: swap, kind: 'terminal_has_changed' });
      const serial = `CT${rngFor(seed, 'terminal', i).int(10_000_000, 99_999_999)}`;
      vehicle.terminals.push({ serial, from_ms: swap });
    }
    const q = options.silence;
    if (q && q.vehicleIndex === i)
      vehicle.silence = {
        from_ms: cal.days[q.fromDay]!.startMs,
        upload_ms: (cal.days[q.fromDay + q.days]?.startMs ?? cal.endMs) + q.uploadAfterMs,
      };
    (options.odometerEvents ?? [])
      .filter((e) => e.vehicleIndex === i)
      .forEach((e, k) => {
        const atMs = cal.days[e.day]!.startMs + (e.hour ?? 3) * HOUR;
        planned.push({ at_ms: atMs, kind: e.kind });
        if (e.kind === 'terminal_has_changed') {
          const serial = `CT${rngFor(seed, 'terminal-extra', i * 100 + k).int(10_000_000, 99_999_999)}`;
          vehicle.terminals.push({ serial, from_ms: atMs });
          vehicle.terminals.sort((a, b) => a.from_ms - b.from_ms);
        }
      });
    const carpool = role.carpool ? makeCarpoolVehicle(role, vehicle) : null;
    const history = carpool && isBookable(carpool) ? carpoolHistory(seed, role, vehicle, cal, drivers) : null;
    const counterResetMs = vehicle.sensors.fuel_canbus_consumed ? threeAm(role.counterResetDay) : null;
    slots.push({ role, vehicle, carpool, history, planned, counterResetMs });
  }

  const slotOf = (vehicleId: number): Slot | undefined => slots[vehicleId - FIRST_VEHICLE_ID];
  const seriesOf = (vehicleId: number): VehicleSeries | undefined => {
    const s = slotOf(vehicleId);
    if (!s) return undefined;
    if (!s.series) {
      const raw = s.role.carpool
        ? (s.history?.trips ?? [])
        : ordinaryTrips(seed, s.role, cal, regularDriverOf(s.role.index, activeDrivers)?.driver_id ?? null);
      s.series = buildSeries(
        seed,
        s.role.index,
        s.vehicle,
        raw,
        s.planned,
        s.counterResetMs,
        s.role.listedTwiceFill,
        s.role.fuelDrops,
      );
    }
    return s.series;
  };
  const visitsOf = (vehicleId: number): readonly SimVisit[] => {
    const s = slotOf(vehicleId);
    const series = seriesOf(vehicleId);
    if (!s || !series) return [];
    s.visits ??= visitsOfTrips(seed, s.role.index, series.trips, places);
    return s.visits;
  };
  const mustSlot = (vehicleId: number): Slot => {
    const s = slotOf(vehicleId);
    if (!s) throw new RangeError(`no vehicle ${vehicleId} in the simulated fleet`);
    return s;
  };
  const mustSeries = (vehicleId: number): VehicleSeries => {
    mustSlot(vehicleId);
    return seriesOf(vehicleId)!;
  };
  const bookingAt = (booking: SimBooking, now: number): BookingView => {
    const k = Math.max(
      0,
      lastAtOrBefore(booking.steps, now, (x) => x.at_ms),
    );
    const st = booking.steps[k]!;
    return {
      booking,
      status: st.status,
      is_approved: st.is_approved,
      approved_by: st.approved_by ?? null,
      declined_by: st.declined_by ?? null,
      picked_up_ms: st.picked_up_ms ?? null,
      returned_ms: st.returned_ms ?? null,
      updated_ms: st.at_ms,
    };
  };

  const vehicles = slots.map((s) => s.vehicle);
  const bookings = slots
    .flatMap((s) => s.history?.bookings ?? [])
    .sort((a, b) => a.start_ms - b.start_ms || a.booking_id - b.booking_id);
  const odometerEvents: OdometerEvent[] = slots
    .filter((s) => s.planned.length > 0)
    .flatMap((s) => mustSeries(s.vehicle.vehicle_id).events)
    .sort((a, b) => a.at_ms - b.at_ms || a.vehicle_id - b.vehicle_id);
  const fuelCounterResets: FuelCounterReset[] = slots
    .filter((s) => s.counterResetMs !== null)
    .map((s) => ({ vehicle_id: s.vehicle.vehicle_id, at_ms: s.counterResetMs! }))
    .sort((a, b) => a.at_ms - b.at_ms);
  const tollIds = new Set(places.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));

  return {
    options,
    timezone,
    startMs: cal.startMs,
    endMs: cal.endMs,
    vehicles,
    geofences: places.geofences,
    drivers,
    carpoolVehicles: slots.flatMap((s) => (s.carpool ? [s.carpool] : [])),
    bookingRules: makeBookingRules(),
    carpoolSettings: makeCarpoolSettings(),
    bookings,
    odometerEvents,
    fuelCounterResets,
    tripsOf: (id) => seriesOf(id)?.trips ?? [],
    fillsOf: (id) => seriesOf(id)?.fills ?? [],
    fuelDropsOf: (id) => seriesOf(id)?.drops ?? [],
    visitsOf,
    odometerAt: (id, ms) => odometerOf(mustSeries(id), ms),
    fuelCounterAt: (id, ms) => fuelCounterOf(mustSlot(id).vehicle, mustSeries(id), ms),
    fuelLevelAt: (id, ms) => fuelLevelOf(mustSlot(id).vehicle, mustSeries(id), ms),
    bookingAt,
    truth: {
      ...makeTruth({ vehicles, tollIds, bookings, seriesOf, visitsOf, bookingAt }),
      fuelDrops: (fromMs, toMs) =>
        vehicles
          .flatMap((v) => seriesOf(v.vehicle_id)?.drops ?? [])
          .filter((d) => d.start_ms >= fromMs && d.start_ms < toMs)
          .sort((a, b) => a.start_ms - b.start_ms || a.vehicle_id - b.vehicle_id),
    },
  };
}
