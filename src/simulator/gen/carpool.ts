/**
 * Carpool configuration: enrolled drivers, carpool vehicles, booking rules, account settings,
 * and the setup_status rules of the spec as pure functions (the simulated API computes
 * setup_status with them, so a PATCH is reflected at once).
 *
 * Rules implemented (this simulated client enables department and licence requirements):
 * - vehicle READY ⇔ category, department, default_location and license_class are all non-empty;
 * - driver ACTIVE_CARPOOL ⇔ can_book_carpool ∧ (allow_system_auto_booking ∨
 *   allow_specific_vehicle_booking) ∧ department non-empty ∧ license_type_ids non-empty, where,
 *   when account settings are given, a flag counts only while its setting is on (spec PATCH rule 4).
 */
import type { BookingStatus } from '../../api/types.ts';
import type {
  BookingRuleRecord,
  CarpoolSettings,
  SimCarpoolVehicle,
  SimDriver,
  SimVehicle,
} from '../model.ts';
import { homeDepotOf } from './places.ts';
import { rngFor } from './prng.ts';
import type { VehicleRole } from './vehicles.ts';

const filled = (s: string | null | undefined) => typeof s === 'string' && s.trim() !== '';

export function carpoolVehicleSetupStatus(v: SimCarpoolVehicle): 'SETUP_INCOMPLETE' | 'READY' {
  return filled(v.category) && filled(v.department) && filled(v.default_location) && filled(v.license_class)
    ? 'READY'
    : 'SETUP_INCOMPLETE';
}

export function carpoolDriverSetupStatus(
  d: Pick<
    SimDriver,
    | 'can_book_carpool'
    | 'allow_system_auto_booking'
    | 'allow_specific_vehicle_booking'
    | 'department'
    | 'license_type_ids'
  >,
  settings?: CarpoolSettings,
): 'SETUP_INCOMPLETE' | 'ACTIVE_CARPOOL' {
  const book = d.can_book_carpool && (settings?.drivers_can_book_carpool ?? true);
  const auto = d.allow_system_auto_booking && (settings?.drivers_can_auto_booking ?? true);
  const specific = d.allow_specific_vehicle_booking && (settings?.drivers_can_book_specific_vehicles ?? true);
  return book && (auto || specific) && filled(d.department) && d.license_type_ids.length > 0
    ? 'ACTIVE_CARPOOL'
    : 'SETUP_INCOMPLETE';
}

/** The spec's state table as (from → allowed next statuses); what the generated steps follow. */
export const BOOKING_TRANSITIONS: Readonly<Partial<Record<BookingStatus, readonly BookingStatus[]>>> = {
  BOOKING_STATUS_REQUESTED: [
    'BOOKING_STATUS_APPROVED',
    'BOOKING_STATUS_DECLINED',
    'BOOKING_STATUS_EXPIRING_APPROVAL',
    'BOOKING_STATUS_CANCELLED',
  ],
  BOOKING_STATUS_EXPIRING_APPROVAL: [
    'BOOKING_STATUS_APPROVED',
    'BOOKING_STATUS_DECLINED',
    'BOOKING_STATUS_CANCELLED',
  ],
  BOOKING_STATUS_APPROVED: [
    'BOOKING_STATUS_ACTIVE',
    'BOOKING_STATUS_CANCELLED',
    'BOOKING_STATUS_FORCE_TERMINATED',
  ],
  BOOKING_STATUS_ACTIVE: [
    'BOOKING_STATUS_ACTIVE_ALMOST_LATE',
    'BOOKING_STATUS_ACTIVE_LATE',
    'BOOKING_STATUS_RETURNED',
    'BOOKING_STATUS_FORCE_TERMINATED',
    'BOOKING_STATUS_CANCELLED',
  ],
  BOOKING_STATUS_ACTIVE_ALMOST_LATE: [
    'BOOKING_STATUS_ACTIVE_LATE',
    'BOOKING_STATUS_FORCE_TERMINATED',
    'BOOKING_STATUS_CANCELLED',
  ],
  BOOKING_STATUS_ACTIVE_LATE: [
    'BOOKING_STATUS_RETURNED_LATE',
    'BOOKING_STATUS_FORCE_TERMINATED',
    'BOOKING_STATUS_CANCELLED',
  ],
};

const FIRST = [
  'Aisha',
  'Ben',
  'Chloe',
  'Dinh',
  'Ella',
  'Farid',
  'Grace',
  'Hiroshi',
  'Isla',
  'Jack',
  'Kemal',
  'Lena',
];
const LAST = [
  'Nguyen',
  'Smith',
  'Patel',
  'Walker',
  'Kowalski',
  'Oduya',
  'Tanaka',
  'Brown',
  'Rossi',
  'Khan',
  'Lee',
  'Moore',
];

/**
 * Drivers 0–7: ACTIVE_CARPOOL (driver 7 only via allow_specific_vehicle_booking, whose account
 * setting starts off, so it shows SETUP_INCOMPLETE until a PATCH switches the setting on);
 * 8: can_book_carpool with both other flags false; 9: no department; 10: no licence;
 * 11: deactivated in the fleet (has past bookings).
 */
export function makeDrivers(seed: number): SimDriver[] {
  const r = rngFor(seed, 'drivers');
  const depts = ['Sales', 'Field Service', 'Logistics', 'Executive'];
  return FIRST.map((first_name, i) => {
    const driver: SimDriver = {
      driver_id: r.uuid(),
      first_name,
      last_name: LAST[(i * 5) % LAST.length]!,
      department: depts[i % depts.length]!,
      deactivated: i === 11,
      can_book_carpool: true,
      allow_system_auto_booking: i !== 7 && i !== 8,
      allow_specific_vehicle_booking: i % 3 === 0 || i === 7,
      license_type_ids: i === 10 ? [] : [1 + (i % 3)],
      special_licenses: i % 4 === 1 ? ['Forklift'] : [],
    };
    if (i === 9) driver.department = null;
    return driver;
  });
}

/** Drivers that book: the active ones and the (later) deactivated one. */
export const BOOKING_DRIVER_INDICES = [0, 1, 2, 3, 4, 5, 6, 11] as const;

export function makeCarpoolVehicle(role: VehicleRole, v: SimVehicle): SimCarpoolVehicle {
  const cv: SimCarpoolVehicle = {
    vehicle_id: v.vehicle_id,
    registration: v.registration,
    category: v.model === 'HiAce' ? 'Van' : v.powertrain === 'electric' ? 'EV' : 'Ute',
    department: v.department,
    default_location: homeDepotOf(role.index),
    license_class: role.index % 3 === 0 ? 'LR' : 'C',
  };
  if (role.index % 20 === 14) cv.category = null;
  if (role.index % 20 === 15) {
    cv.department = null;
    cv.license_class = null;
  }
  return cv;
}

/** Incomplete carpool vehicles cannot be booked, so they get no bookings (and never drive). */
export const isBookable = (cv: SimCarpoolVehicle) => carpoolVehicleSetupStatus(cv) === 'READY';

export function makeBookingRules(): BookingRuleRecord[] {
  return [
    { booking_rule_id: 1, name: 'max_booking_duration_hours', value: 72 },
    { booking_rule_id: 2, name: 'pickup_grace_minutes', value: 30 },
    { booking_rule_id: 3, name: 'almost_late_warning_minutes', value: 15 },
    { booking_rule_id: 4, name: 'approval_required', value: true },
  ];
}

/** All on except drivers_can_book_specific_vehicles (a PATCH setting that flag true switches it on). */
export function makeCarpoolSettings(): CarpoolSettings {
  return {
    drivers_can_book_carpool: true,
    drivers_can_auto_booking: true,
    drivers_can_book_specific_vehicles: false,
  };
}
