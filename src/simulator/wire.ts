/**
 * Fleet records → the JSON the real Fleet API sends (field names, types and timestamp forms of
 * `fleet-api-wire-notes.md` and the contract). Pure functions of the fleet and an instant; the
 * routes decide what is visible as of `now`.
 *
 * Response timestamps are `YYYY-MM-DD HH:MM:SS+HH` in the account zone; fuel level points are
 * ISO with `T`. Wire names are the ones seen on the wire, not the documented ones
 * (`last_event_ts`, `start_period`, `fill_amount_litres`, `vehicle_name`, …).
 */
import { formatIsoInZone, formatWireTimestamp } from '../time.ts';
import type {
  BookingView,
  CarpoolSettings,
  Fleet,
  SimCarpoolVehicle,
  SimDriver,
  SimFill,
  SimGeofence,
  SimTrip,
  SimVehicle,
  SimVisit,
} from './model.ts';
import { carpoolDriverSetupStatus, carpoolVehicleSetupStatus } from './gen/carpool.ts';
import { lastAtOrBefore } from './gen/series.ts';
import { tripTraits } from './gen/trip-traits.ts';

/** setup_status follows the generator's implementation of the spec rule (one source of truth). */
export { carpoolDriverSetupStatus, carpoolVehicleSetupStatus };

type Json = Record<string, unknown>;

const MINUTE = 60_000;
/** While driving a tracker reports every 30 s; while parked a heartbeat every 30 min. */
const DRIVING_EVERY_MS = 30_000;
const PARKED_EVERY_MS = 30 * MINUTE;

export const wireTs = (ms: number, zone: string) => formatWireTimestamp(Math.floor(ms / 1000) * 1000, zone);
export const isoTs = (ms: number, zone: string) => formatIsoInZone(Math.floor(ms / 1000) * 1000, zone);
const round = (n: number, digits: number) => Number(n.toFixed(digits));

/** Deterministic pseudo coordinates for a label (the simulator has no map). */
export function coordinatesOf(label: string): { latitude: number; longitude: number } {
  let h = 2166136261;
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619) >>> 0;
  return {
    latitude: round(-33.87 + ((h & 0xffff) / 0xffff - 0.5) * 0.4, 6),
    longitude: round(151.21 + ((h >>> 16) / 0xffff - 0.5) * 0.4, 6),
  };
}

/** The last trip of `trips` (ordered by start) that started at or before `ms`, by binary search. */
export function tripAtOrBefore(trips: readonly SimTrip[], ms: number): SimTrip | undefined {
  const i = lastAtOrBefore(trips, ms, (t) => t.start_ms);
  return i >= 0 ? trips[i] : undefined;
}

/** Instant of the latest event the vehicle produced at or before `ms` (trip points or heartbeats). */
export function lastEventAt(fleet: Fleet, v: SimVehicle, ms: number): number {
  const t = tripAtOrBefore(fleet.tripsOf(v.vehicle_id), ms);
  if (t && t.end_ms >= ms)
    return t.start_ms + Math.floor((ms - t.start_ms) / DRIVING_EVERY_MS) * DRIVING_EVERY_MS;
  const beat = Math.floor(ms / PARKED_EVERY_MS) * PARKED_EVERY_MS;
  return t ? Math.max(t.end_ms, beat) : beat;
}

export function terminalAt(v: SimVehicle, ms: number): string | null {
  let serial: string | null = v.terminals[0]?.serial ?? null;
  for (const t of v.terminals) if (t.from_ms <= ms) serial = t.serial;
  return serial;
}

export function vehicleWire(v: SimVehicle, now: number): Json {
  return {
    vehicle_id: v.vehicle_id,
    terminal_serial: terminalAt(v, now),
    registration: v.registration,
    vehicle_name: v.vehicle_name,
    client_vehicle_description: v.department,
    client_vehicle_description2: null,
    client_vehicle_description3: null,
    manufacturer: v.manufacturer,
    model: v.model,
    model_year: v.model_year,
    colour: 'White',
    chassis_number: v.chassis_number,
    engine_type: engineType(v),
    vehicle_type: vehicleClassOf(v),
    is_under_maintenance: false,
    terminal_in_repair: false,
    sensors: { ...v.sensors },
  };
}

const CLASS_OF_MODEL: Readonly<Record<string, string>> = {
  Hilux: 'Ute',
  Ranger: 'Ute',
  'D-Max': 'Ute',
  Triton: 'Ute',
  Amarok: 'Ute',
  HiAce: 'Van',
  'Staria Load': 'Van',
  'CX-5': 'SUV',
};

/** The vehicle's class as the API's `vehicle_type` names it (a passenger car unless a ute, van or SUV). */
export function vehicleClassOf(v: SimVehicle): string {
  return CLASS_OF_MODEL[v.model] ?? 'Passenger car';
}

export function engineType(v: SimVehicle): string {
  return v.powertrain === 'electric' ? 'Electric' : v.powertrain === 'analog' ? 'Petrol' : 'Diesel';
}

const hms = (s: number) =>
  [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');

/**
 * A trip as the API lists it. A private trip comes only with `incl_private=true` (routes/trips.ts)
 * and with a reduced data set: this simulator's reading of "reduced" (the docs do not list it) is
 * no places — locations, coordinates and geofence names are null — and no title or notes.
 */
export function tripWire(t: SimTrip, v: SimVehicle, fleet: Fleet): Json {
  const zone = fleet.timezone;
  const seconds = Math.round((t.end_ms - t.start_ms) / 1000);
  const driver = t.driver_id ? fleet.drivers.find((d) => d.driver_id === t.driver_id) : undefined;
  const traits = tripTraits(t);
  const hidden = traits.is_private;
  return {
    trip_id: t.trip_id,
    vehicle_id: t.vehicle_id,
    registration: t.registration,
    chassis_number: v.chassis_number,
    start_timestamp: wireTs(t.start_ms, zone),
    end_timestamp: wireTs(t.end_ms, zone),
    trip_duration: hms(seconds),
    trip_duration_seconds: seconds,
    start_location: hidden ? null : t.start_location,
    end_location: hidden ? null : t.end_location,
    start_coordinates: hidden ? null : coordinatesOf(t.start_location),
    end_coordinates: hidden ? null : coordinatesOf(t.end_location),
    start_odometer: Math.round(t.start_odometer_m),
    end_odometer: Math.round(t.end_odometer_m),
    trip_distance: Math.round(t.distance_m),
    start_geofence_name: hidden ? '' : (traits.start_geofence_name ?? ''),
    end_geofence_name: hidden ? '' : (traits.end_geofence_name ?? ''),
    thresholds_speeding_events: traits.thresholds_speeding_events,
    thresholds_speeding_duration_seconds: traits.thresholds_speeding_duration_seconds,
    road_speeding_events: traits.road_speeding_events,
    road_speeding_duration_seconds: traits.road_speeding_duration_seconds,
    max_speed: traits.max_speed,
    harsh_braking_events: traits.harsh_braking_events,
    harsh_cornering_events: traits.harsh_cornering_events,
    harsh_acceleration_events: traits.harsh_acceleration_events,
    idle_time: '00:00:00',
    idle_time_seconds: 0,
    driver_id: t.driver_id,
    driver_name: driver?.first_name ?? null,
    driver_surname: driver?.last_name ?? null,
    trip_type: traits.trip_type,
    is_private: traits.is_private,
    trip_title: hidden ? null : traits.trip_title,
    trip_extra_notes: hidden ? null : traits.trip_extra_notes,
  };
}

export function fillWire(f: SimFill, v: SimVehicle, zone: string): Json {
  const c = coordinatesOf(f.location);
  return {
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    chassis_number: v.chassis_number,
    vehicle_description: v.department,
    fill_amount_litres: round(f.litres, 2),
    fill_timestamp: wireTs(f.at_ms, zone),
    fill_odometer: Math.round(f.odometer_m),
    fill_location: f.location,
    latitude: c.latitude,
    longitude: c.longitude,
    accurate: true,
  };
}

/** Whether the generator marked a fill as one the service lists twice (optional model field). */
export function isListedTwice(f: SimFill): boolean {
  return f.listed_twice === true;
}

export function geofenceWire(g: SimGeofence): Json {
  return {
    geofence_id: g.geofence_id,
    name: g.name,
    description: g.description,
    colour: g.colour,
    is_toll: g.is_toll,
  };
}

export function visitWire(visit: SimVisit, g: SimGeofence | undefined, zone: string): Json {
  return {
    vehicle_id: visit.vehicle_id,
    registration: visit.registration,
    geofence_id: visit.geofence_id,
    geofence_name: g?.name ?? null,
    is_toll: g?.is_toll ?? false,
    enter_timestamp: wireTs(visit.enter_ms, zone),
    exit_timestamp: wireTs(visit.exit_ms, zone),
    duration_total: Math.round((visit.exit_ms - visit.enter_ms) / 1000),
  };
}

export function bookingWire(b: BookingView, zone: string): Json {
  const ts = (ms: number | null) => (ms === null ? null : wireTs(ms, zone));
  return {
    booking_id: b.booking.booking_id,
    vehicle_id: b.booking.vehicle_id,
    registration: b.booking.registration,
    driver_id: b.booking.driver_id,
    department: b.booking.department,
    booking_status: b.status,
    is_approved: b.is_approved,
    approved_by: b.approved_by,
    declined_by: b.declined_by,
    start_ts: wireTs(b.booking.start_ms, zone),
    end_ts: wireTs(b.booking.end_ms, zone),
    picked_up_at: ts(b.picked_up_ms),
    returned_at: ts(b.returned_ms),
    created_ts: wireTs(b.booking.created_ms, zone),
    updated_ts: wireTs(b.updated_ms, zone),
  };
}

export function carpoolDriverWire(d: SimDriver, s: CarpoolSettings): Json {
  return {
    driver_id: d.driver_id,
    first_name: d.first_name,
    last_name: d.last_name,
    department: d.department,
    can_book_carpool: d.can_book_carpool,
    allow_system_auto_booking: d.allow_system_auto_booking,
    allow_specific_vehicle_booking: d.allow_specific_vehicle_booking,
    license_type_ids: [...d.license_type_ids],
    special_licenses: [...d.special_licenses],
    setup_status: carpoolDriverSetupStatus(d, s),
  };
}

export function carpoolVehicleWire(v: SimCarpoolVehicle): Json {
  return {
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    category: v.category,
    department: v.department,
    default_location: v.default_location,
    license_class: v.license_class,
    setup_status: carpoolVehicleSetupStatus(v),
  };
}
