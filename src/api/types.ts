/**
 * Normalized records, as the client hands them to the sync after zod parsing of the wire
 * payloads (see src/api/schemas.ts). Field aliases and timestamp variants of the wire notes are
 * resolved here: every instant is epoch milliseconds (UTC), every distance metres, every fuel
 * quantity litres, ids as the sync stores them.
 */
export interface VehicleSensors {
  fuel_canbus_consumed: boolean;
  fuel_canbus_level: boolean;
  fuel_analog_level: boolean;
  electric_battery: boolean;
  electric_charging: boolean;
}

export interface Vehicle {
  vehicle_id: number;
  registration: string;
  vehicle_name: string | null; // wire `vehicle_name`, doc `client_vehicle_name`
  description: string | null; // `client_vehicle_description` (the simulator puts the department here)
  manufacturer: string | null;
  model: string | null;
  model_year: number | null;
  chassis_number: string | null;
  terminal_serial: string | null;
  sensors: VehicleSensors;
  /** Wire `fuel_type`, else `engine_type` (`Diesel`, `Petrol`, `Electric`, …), as sent. */
  fuel_type: string | null;
  /** Wire `vehicle_class`, else `vehicle_type`, as sent. */
  vehicle_class: string | null;
  /** The wire keys no field above maps, as compact JSON (null when none): see `extraFields`. */
  extra_fields: string | null;
}

export interface Trip {
  trip_id: string;
  vehicle_id: number;
  registration: string;
  start_ms: number;
  end_ms: number;
  trip_distance_m: number;
  start_odometer_m: number | null;
  end_odometer_m: number | null;
  driver_id: string | null;
  start_location: string | null;
  end_location: string | null;
  /** `None`, `Business` or `Private` as the API classifies the trip; another value is kept as sent. */
  trip_type: string | null;
  /** False when `trip_type` is a value this version does not know (it is stored as sent). */
  trip_type_known: boolean;
  is_private: boolean | null;
  trip_title: string | null;
  trip_extra_notes: string | null;
  harsh_braking_events: number | null;
  harsh_acceleration_events: number | null;
  harsh_cornering_events: number | null;
  road_speeding_events: number | null;
  road_speeding_duration_seconds: number | null;
  thresholds_speeding_events: number | null;
  thresholds_speeding_duration_seconds: number | null;
  /** As the API sends it (its unit is not documented: km/h on the accounts seen). */
  max_speed: number | null;
  start_geofence_name: string | null;
  end_geofence_name: string | null;
  extra_fields: string | null;
}

/** The values of `trip_type` this version knows (PUT /trips/{registration}). */
export const TRIP_TYPES = ['None', 'Business', 'Private'] as const;

/** GET /vehicles/{registration}/odometer for one window; `null` when the API answered `data: null|{}`. */
export interface OdometerWindow {
  vehicle_id: number | null;
  registration: string;
  start_odometer_m: number | null;
  end_odometer_m: number | null;
  distance_m: number | null;
  current_odometer_m: number | null;
  last_event_ms: number | null; // wire `last_event_ts`, doc `latest_event_ts`
  odometer_reset: boolean;
  terminal_has_changed: boolean;
}

/** Fuel consumed (ECU counter) for one vehicle and window; `null` when the vehicle has no CAN data. */
export interface FuelConsumed {
  vehicle_id: number | null;
  registration: string;
  counter_start_l: number | null; // fuel_consumed_start
  counter_end_l: number | null; // fuel_consumed_end
  fuel_consumed_l: number | null;
}

/** POST /vehicles/ev-consumption: an electric vehicle's battery energy over a ≤ 24 h window. */
export interface EvConsumption {
  vehicle_id: number | null;
  registration: string;
  /** Energy drawn from the battery over the window (kWh). */
  energy_consumed_kwh: number;
  /** Energy put into the battery by charging over the window (kWh). */
  energy_charged_kwh: number | null;
  distance_m: number | null;
  start_soc_pct: number | null;
  end_soc_pct: number | null;
}

export interface FuelLevelPoint {
  litres: number | null;
  ms: number | null;
  accurate: boolean | null;
}

/** Fuel level / estimated used for one vehicle and window (wire `start_period`/`end_period`). */
export interface FuelLevel {
  vehicle_id: number | null;
  registration: string;
  start: FuelLevelPoint;
  end: FuelLevelPoint;
  estimated_fuel_used_l: number | null;
  calibrated: boolean | null;
}

/** One reading of the tank level series (GET /fuel/level/history/{registration}). */
export interface FuelLevelReading {
  vehicle_id: number | null;
  registration: string;
  ms: number;
  litres: number;
  accurate: boolean | null;
}

export interface FuelFill {
  vehicle_id: number | null;
  registration: string;
  fill_ms: number;
  amount_l: number;
  odometer_m: number | null;
  location: string | null;
  accurate: boolean | null;
  extra_fields: string | null;
}

export interface Geofence {
  geofence_id: string;
  name: string;
  description: string | null;
  colour: string | null;
  is_toll: boolean;
  extra_fields: string | null;
}

export interface GeofenceVisit {
  vehicle_id: number;
  registration: string;
  geofence_id: string;
  geofence_name: string | null;
  is_toll: boolean | null;
  enter_ms: number;
  exit_ms: number | null;
  duration_s: number | null;
  extra_fields: string | null;
}

export const BOOKING_STATUSES = [
  'BOOKING_STATUS_FREE',
  'BOOKING_STATUS_REQUESTED',
  'BOOKING_STATUS_APPROVED',
  'BOOKING_STATUS_DECLINED',
  'BOOKING_STATUS_CANCELLED',
  'BOOKING_STATUS_ACTIVE',
  'BOOKING_STATUS_ACTIVE_ALMOST_LATE',
  'BOOKING_STATUS_ACTIVE_LATE',
  'BOOKING_STATUS_RETURNED',
  'BOOKING_STATUS_RETURNED_LATE',
  'BOOKING_STATUS_EXPIRING_APPROVAL',
  'BOOKING_STATUS_FORCE_TERMINATED',
] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/**
 * Statuses after which a booking never changes again; others are re-pulled on later runs (a
 * status this version does not know is not known to be final either).
 */
export const FINAL_BOOKING_STATUSES: ReadonlySet<string> = new Set<BookingStatus>([
  'BOOKING_STATUS_DECLINED',
  'BOOKING_STATUS_CANCELLED',
  'BOOKING_STATUS_RETURNED',
  'BOOKING_STATUS_RETURNED_LATE',
  'BOOKING_STATUS_FORCE_TERMINATED',
]);

export interface Booking {
  booking_id: number;
  vehicle_id: number;
  registration: string;
  driver_id: string;
  department: string | null;
  /** A status of BOOKING_STATUSES, or one this version does not know, exactly as the API sent it. */
  booking_status: string;
  /** False when `booking_status` is not one of BOOKING_STATUSES. */
  booking_status_known: boolean;
  is_approved: boolean;
  approved_by: string | null;
  declined_by: string | null;
  start_ms: number;
  end_ms: number;
  picked_up_ms: number | null;
  returned_ms: number | null;
  created_ms: number;
  updated_ms: number;
  extra_fields: string | null;
}

export interface CarpoolDriver {
  driver_id: string;
  first_name: string | null;
  last_name: string | null;
  department: string | null;
  can_book_carpool: boolean;
  allow_system_auto_booking: boolean;
  allow_specific_vehicle_booking: boolean;
  license_type_ids: number[];
  special_licenses: string[];
  /** One of CARPOOL_DRIVER_SETUP_STATUSES, or a value this version does not know, as sent. */
  setup_status: string;
  setup_status_known: boolean;
  extra_fields: string | null;
}

export const CARPOOL_DRIVER_SETUP_STATUSES = ['SETUP_INCOMPLETE', 'ACTIVE_CARPOOL'] as const;
export const CARPOOL_VEHICLE_SETUP_STATUSES = ['SETUP_INCOMPLETE', 'READY'] as const;

export interface CarpoolVehicle {
  vehicle_id: number;
  registration: string;
  category: string | null;
  department: string | null;
  default_location: string | null;
  license_class: string | null;
  /** One of CARPOOL_VEHICLE_SETUP_STATUSES, or a value this version does not know, as sent. */
  setup_status: string;
  setup_status_known: boolean;
  extra_fields: string | null;
}

export interface BookingRule {
  booking_rule_id: number;
  name: string;
  value: unknown;
}

/** `meta` of a list response; unknown keys are ignored. */
export interface PageMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
  /** The positions (1-based) of the page's first and last record in the whole list, when sent. */
  from?: number;
  to?: number;
}

/** GET /vehicles/activity for one local day: one vehicle's engine-on time that day. */
export interface VehicleActivity {
  vehicle_id: number;
  registration: string;
  /** The local day (YYYY-MM-DD) the answer is for (the request's `filter[date]` when the item has none). */
  date: string | null;
  first_ignition_on_ms: number | null;
  last_ignition_off_ms: number | null;
  idle_s: number;
  driving_s: number;
  /** Ids of the drivers identified in the vehicle that day. */
  driver_ids: string[];
  extra_fields: string | null;
}

/** GET /drivers: a fleet driver (all drivers, active or not). */
export interface Driver {
  driver_id: string;
  first_name: string | null;
  last_name: string | null;
  /** As the API says it (`active`, `inactive`, …), lower case. */
  status: string | null;
  groups: string[];
  extra_fields: string | null;
}
