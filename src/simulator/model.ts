/**
 * The simulator's world: a deterministic fleet generated from a seed, with the ground truth
 * that tests compare reports against. `generateFleet` (src/simulator/generate.ts) builds a
 * `Fleet`; the HTTP API (src/simulator/server.ts) serves it "as of now" (an injected clock), so a
 * record is visible only once it exists at `now` (a trip once it has ended, a visit once the
 * vehicle left the geofence, data of a late-reporting vehicle only after its delay).
 *
 * Instants are epoch milliseconds; distances metres; fuel litres. Windows are [from, to).
 */
import type { BookingStatus, VehicleSensors } from '../api/types.ts';

export interface FleetOptions {
  seed: number;
  vehicles: number;
  days: number;
  /** The account's IANA zone (default 'Australia/Sydney', which has daylight saving). */
  timezone: string;
  /**
   * The last local calendar day of generated history (`YYYY-MM-DD`); history covers the `days`
   * local days ending with it. Fixing it makes the fleet byte-for-byte reproducible.
   */
  endDay: string;
  /**
   * A tracker that goes silent (tunnel, remote area, underground car park) and then uploads its
   * backlog: vehicle `vehicleIndex` keeps driving from local day `fromDay` (index into history)
   * for `days` days, but none of its data from `fromDay` on reaches the API before `uploadAfterMs`
   * after the silence ends. Default: none (the default world is unchanged).
   */
  silence?: { vehicleIndex: number; fromDay: number; days: number; uploadAfterMs: number };
  /**
   * Odometer events besides each role's own (tests): at local `hour` (default 3) of history day
   * `day` (an index), vehicle `vehicleIndex`'s odometer is reset or its tracker replaced. Two on one
   * day make a window with both; one on a daylight-saving change day, or two in one month, are
   * the other cases the sync must split right. Default: none.
   */
  odometerEvents?: {
    vehicleIndex: number;
    day: number;
    kind: 'odometer_reset' | 'terminal_has_changed';
    hour?: number;
  }[];
}

export type Powertrain = 'can' | 'analog' | 'electric' | 'none';

export interface SimVehicle {
  vehicle_id: number;
  /** Plates include spaces and lower case, e.g. `ab 123 gp`. */
  registration: string;
  vehicle_name: string;
  department: string;
  manufacturer: string;
  model: string;
  model_year: number;
  chassis_number: string;
  powertrain: Powertrain;
  sensors: VehicleSensors;
  /** Litres per 100 km (0 for electric). */
  consumption_l_per_100km: number;
  tank_l: number;
  /** Tracker history: serial and the instant it was fitted; the first entry is from before history. */
  terminals: { serial: string; from_ms: number }[];
  /** Data from this vehicle reaches the API this long after it happens (0 for most). */
  report_delay_ms: number;
  /**
   * Silent from `from_ms` until `upload_ms`: the API sees nothing of this vehicle from `from_ms`
   * on before `upload_ms`, then the whole backlog at once (FleetOptions.silence).
   */
  silence?: { from_ms: number; upload_ms: number };
}

export interface SimTrip {
  trip_id: string;
  vehicle_id: number;
  registration: string;
  start_ms: number;
  end_ms: number;
  /** True distance driven. */
  distance_m: number;
  /** Odometer as the tracker reports it at start/end (continuous while driving). */
  start_odometer_m: number;
  end_odometer_m: number;
  driver_id: string | null;
  start_location: string;
  end_location: string;
}

/** An event that makes an odometer window's `distance` untrustworthy. */
export interface OdometerEvent {
  vehicle_id: number;
  at_ms: number; // while parked
  kind: 'odometer_reset' | 'terminal_has_changed';
  reading_before_m: number;
  reading_after_m: number;
}

export interface FuelCounterReset {
  vehicle_id: number;
  at_ms: number; // while parked; the counter restarts at 0
}

export interface SimFill {
  vehicle_id: number;
  at_ms: number;
  litres: number;
  odometer_m: number;
  location: string;
  /** The simulated API lists this fill twice, as the real service sometimes does (de-duplicate). */
  listed_twice?: boolean;
}

/**
 * A staged fuel drop (suspected siphoning): the tank level falls by `litres`, linearly over
 * [start_ms, end_ms], while the vehicle is parked with the ignition off. Not fuel burned: the
 * API's estimated fuel used leaves it out.
 */
export interface SimFuelDrop {
  vehicle_id: number;
  start_ms: number;
  end_ms: number;
  litres: number;
  level_before_l: number;
  level_after_l: number;
}

export interface SimGeofence {
  geofence_id: string; // UUID
  name: string;
  description: string | null;
  colour: string;
  is_toll: boolean;
}

export interface SimVisit {
  vehicle_id: number;
  registration: string;
  geofence_id: string;
  enter_ms: number;
  exit_ms: number; // always inside one trip of the vehicle
}

export interface SimDriver {
  driver_id: string; // UUID
  first_name: string;
  last_name: string;
  department: string | null;
  /** Deactivated in the fleet: not listed by GET /carpool/drivers, PATCH answers 404. */
  deactivated: boolean;
  can_book_carpool: boolean;
  allow_system_auto_booking: boolean;
  allow_specific_vehicle_booking: boolean;
  license_type_ids: number[];
  special_licenses: string[];
}

export interface SimCarpoolVehicle {
  vehicle_id: number;
  registration: string;
  category: string | null;
  department: string | null;
  default_location: string | null;
  license_class: string | null;
}

/** One step of a booking's life; the status at `now` is that of the last step at or before `now`. */
export interface BookingStep {
  at_ms: number;
  status: BookingStatus;
  is_approved: boolean;
  approved_by?: string | null;
  declined_by?: string | null;
  picked_up_ms?: number | null;
  returned_ms?: number | null;
}

export interface SimBooking {
  booking_id: number;
  vehicle_id: number;
  registration: string;
  driver_id: string;
  department: string | null;
  start_ms: number;
  end_ms: number;
  created_ms: number;
  /** Ordered by at_ms; the first step is REQUESTED at created_ms. */
  steps: BookingStep[];
  /** Ground truth: the vehicle came back after end_ts (the last trip of the booking ended after it). */
  truly_late: boolean;
  /** Which spec trap this booking exercises, if any (for tests and docs). */
  trap?:
    'returned_at_after_end' | 'returned_late_before_end' | 'auto_approved' | 'declined_by_one_department';
}

export interface BookingRuleRecord {
  booking_rule_id: number;
  name: string;
  value: unknown;
}

/** The three account settings bound to the driver flags (spec: PATCH rules 4–6). */
export interface CarpoolSettings {
  drivers_can_book_carpool: boolean;
  drivers_can_auto_booking: boolean;
  drivers_can_book_specific_vehicles: boolean;
}

/** A booking as of an instant (what GET /carpool/bookings shows then). */
export interface BookingView {
  booking: SimBooking;
  status: BookingStatus;
  is_approved: boolean;
  approved_by: string | null;
  declined_by: string | null;
  picked_up_ms: number | null;
  returned_ms: number | null;
  updated_ms: number;
}

export interface Fleet {
  readonly options: FleetOptions;
  readonly timezone: string;
  /** First instant of history (local midnight of the first day) and end (local midnight after endDay). */
  readonly startMs: number;
  readonly endMs: number;
  readonly vehicles: readonly SimVehicle[];
  readonly geofences: readonly SimGeofence[];
  readonly drivers: SimDriver[]; // mutable: PATCH/DELETE /carpool/drivers change it
  readonly carpoolVehicles: readonly SimCarpoolVehicle[];
  readonly bookingRules: BookingRuleRecord[]; // mutable: PATCH /carpool/rules
  readonly carpoolSettings: CarpoolSettings; // mutable
  readonly bookings: readonly SimBooking[];
  readonly odometerEvents: readonly OdometerEvent[];
  readonly fuelCounterResets: readonly FuelCounterReset[];

  /** Trips of one vehicle, ordered by start (generated lazily per vehicle and cached). */
  tripsOf(vehicleId: number): readonly SimTrip[];
  /** Fills of one vehicle (level-sensor vehicles only), ordered. */
  fillsOf(vehicleId: number): readonly SimFill[];
  /** Staged fuel drops of one vehicle (level-sensor vehicles only), ordered. */
  fuelDropsOf(vehicleId: number): readonly SimFuelDrop[];
  /** Visits of one vehicle, ordered by enter. */
  visitsOf(vehicleId: number): readonly SimVisit[];

  /** Odometer reading the tracker reports at an instant (jumps at reset / tracker change). */
  odometerAt(vehicleId: number, ms: number): number;
  /** Cumulative ECU fuel counter at an instant (CAN vehicles; restarts at 0 at a counter reset). */
  fuelCounterAt(vehicleId: number, ms: number): number | null;
  /** Tank content at an instant (level-sensor vehicles). */
  fuelLevelAt(vehicleId: number, ms: number): number | null;
  /** A booking as it stands at `nowMs`. */
  bookingAt(booking: SimBooking, nowMs: number): BookingView;

  readonly truth: GroundTruth;
}

/** What really happened, for tests and reports to compare with. */
export interface GroundTruth {
  /** Distance really driven by the vehicle in [fromMs, toMs) (trips clipped to the window). */
  distanceM(vehicleId: number, fromMs: number, toMs: number): number;
  /** Fuel really burned in [fromMs, toMs) (CAN and analog vehicles; 0 for electric). */
  fuelUsedL(vehicleId: number, fromMs: number, toMs: number): number;
  /** Every trip overlapping [fromMs, toMs), all vehicles, ordered by (start, trip_id). */
  trips(fromMs: number, toMs: number): SimTrip[];
  /** Toll-geofence visits whose enter time is in [fromMs, toMs). */
  tollVisits(fromMs: number, toMs: number): SimVisit[];
  /** All visits whose enter time is in [fromMs, toMs). */
  visits(fromMs: number, toMs: number): SimVisit[];
  /** Staged fuel drops (all vehicles) that start in [fromMs, toMs), ordered by (start, vehicle). */
  fuelDrops(fromMs: number, toMs: number): SimFuelDrop[];
  /** Bookings whose scheduled window overlaps [fromMs, toMs), as of nowMs. */
  bookings(fromMs: number, toMs: number, nowMs: number): BookingView[];
  /**
   * The tax logbook's truth: the distance really driven on the vehicle's trips that start in
   * [fromMs, toMs), by the class the API gives them (Business, Private, None = unclassified).
   * Trips overlapping a span of `leaveOut` (e.g. the local days of odometer events, which the
   * odometer rule leaves out) are summed apart in `left_out_m`.
   */
  logbookKm(
    vehicleId: number,
    fromMs: number,
    toMs: number,
    leaveOut?: readonly (readonly [number, number])[],
  ): LogbookTruth;
}

/** Metres per class of a vehicle's trips in a range (GroundTruth.logbookKm). */
export interface LogbookTruth {
  business_m: number;
  private_m: number;
  unclassified_m: number;
  trips: number;
  left_out_m: number;
  left_out_trips: number;
}
