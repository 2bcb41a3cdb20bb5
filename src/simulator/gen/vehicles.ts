/**
 * Vehicles and their roles. A vehicle is a pure function of (seed, index): its id, plate, make,
 * powertrain and the special events it carries (odometer reset, tracker change, …). The first 20
 * indices have fixed roles so every required feature exists in the default fleet (and in any
 * fleet of at least 20 vehicles); later indices repeat a sparser pattern for scale.
 */
import type { VehicleSensors } from '../../api/types.ts';
import type { Powertrain, SimVehicle } from '../model.ts';
import { rngFor } from './prng.ts';

export const DEPARTMENTS = ['Sales', 'Field Service', 'Logistics', 'Executive'] as const;
export const FIRST_VEHICLE_ID = 1001;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const MINUTE = 60_000;

export interface VehicleRole {
  index: number;
  powertrain: Powertrain;
  department: string;
  /** Drives late-night runs that cross local midnight (always on the last day of a month). */
  nightRuns: boolean;
  /** Day indices [from, to) during which the vehicle stays parked. */
  parked: [number, number] | null;
  odometerResetDay: number | null;
  trackerChangeDay: number | null;
  counterResetDay: number | null;
  listedTwiceFill: boolean;
  /** Fuel drops staged while parked (suspected siphoning), spread over the history. */
  fuelDrops: number;
  carpool: boolean;
  /** Index among the special carpool vehicles 10..13 (end-of-history bookings, traps); else -1. */
  carpoolSlot: number;
  reportDelayMs: number;
}

const at = (days: number, frac: number) => (days >= 21 ? Math.floor(days * frac) : null);

export function roleOf(seed: number, index: number, days: number): VehicleRole {
  const r = rngFor(seed, 'role', index);
  const role: VehicleRole = {
    index,
    powertrain: 'can',
    department: DEPARTMENTS[index % DEPARTMENTS.length]!,
    nightRuns: false,
    parked: null,
    odometerResetDay: null,
    trackerChangeDay: null,
    counterResetDay: null,
    listedTwiceFill: false,
    fuelDrops: 0,
    carpool: false,
    carpoolSlot: -1,
    reportDelayMs: 0,
  };
  const fixed: Partial<VehicleRole>[] = [
    { department: 'Sales' },
    { department: 'Field Service', odometerResetDay: at(days, 0.5) },
    { department: 'Logistics', nightRuns: true },
    { department: 'Executive', powertrain: 'electric' },
    { department: 'Logistics', counterResetDay: at(days, 0.45) },
    {
      department: 'Field Service',
      powertrain: 'analog',
      listedTwiceFill: true,
      trackerChangeDay: at(days, 0.6),
    },
    {
      department: 'Sales',
      parked: days >= 40 ? [Math.floor(days * 0.3), Math.floor(days * 0.3) + 24] : null,
    },
    { department: 'Field Service', reportDelayMs: 5 * HOUR },
    { department: 'Logistics', powertrain: 'none' },
    // Slot 9: the small test fleets (≤ 9 vehicles) do not have it; its staged drops do not show there.
    { department: 'Field Service', powertrain: 'analog', fuelDrops: 3 },
  ];
  if (index < fixed.length) return { ...role, ...fixed[index] };
  if (index < 20) {
    const carpool = index >= 10 && index <= 15;
    const powertrain: Powertrain = index === 12 || index === 17 ? 'analog' : 'can';
    return { ...role, powertrain, carpool, carpoolSlot: index >= 10 && index <= 13 ? index - 10 : -1 };
  }
  const u = r.next();
  const powertrain: Powertrain = u < 0.75 ? 'can' : u < 0.93 ? 'analog' : u < 0.98 ? 'electric' : 'none';
  const m = index % 40;
  return {
    ...role,
    powertrain,
    nightRuns: role.department === 'Logistics' && r.chance(0.3),
    carpool: index % 20 >= 10 && index % 20 <= 13,
    odometerResetDay: m === 21 ? at(days, r.real(0.2, 0.8)) : null,
    trackerChangeDay: m === 25 ? at(days, r.real(0.2, 0.8)) : null,
    counterResetDay: m === 24 && powertrain === 'can' ? at(days, r.real(0.2, 0.8)) : null,
  };
}

const MAKES: { manufacturer: string; model: string; tank: number; kind: 'ice' | 'ev' }[] = [
  { manufacturer: 'Toyota', model: 'Hilux', tank: 80, kind: 'ice' },
  { manufacturer: 'Ford', model: 'Ranger', tank: 80, kind: 'ice' },
  { manufacturer: 'Isuzu', model: 'D-Max', tank: 76, kind: 'ice' },
  { manufacturer: 'Toyota', model: 'HiAce', tank: 70, kind: 'ice' },
  { manufacturer: 'Mitsubishi', model: 'Triton', tank: 75, kind: 'ice' },
  { manufacturer: 'Hyundai', model: 'Staria Load', tank: 75, kind: 'ice' },
  { manufacturer: 'Volkswagen', model: 'Amarok', tank: 80, kind: 'ice' },
  { manufacturer: 'Mazda', model: 'CX-5', tank: 56, kind: 'ice' },
  { manufacturer: 'Toyota', model: 'Camry', tank: 50, kind: 'ice' },
  { manufacturer: 'Tesla', model: 'Model 3', tank: 0, kind: 'ev' },
  { manufacturer: 'BYD', model: 'Atto 3', tank: 0, kind: 'ev' },
  { manufacturer: 'Hyundai', model: 'Ioniq 5', tank: 0, kind: 'ev' },
];

function sensorsOf(p: Powertrain): VehicleSensors {
  return {
    fuel_canbus_consumed: p === 'can',
    fuel_canbus_level: p === 'can',
    fuel_analog_level: p === 'analog',
    electric_battery: p === 'electric',
    electric_charging: p === 'electric',
  };
}

/** Plates: unique per index, mixed formats, some with spaces and lower case (`ab 123 gp`). */
function plateOf(index: number, letters: string, digits: string): string {
  const n = String(index).padStart(3, '0');
  switch (index % 4) {
    case 0:
      return `${letters.slice(0, 2).toLowerCase()} ${n} gp`;
    case 1:
      return `CA ${n}-${digits}`;
    case 2:
      return `${letters} ${n}`;
    default:
      return `${letters.slice(0, 2)}${n}${letters.slice(2)}`;
  }
}

export function makeVehicle(seed: number, role: VehicleRole, historyStartMs: number): SimVehicle {
  const r = rngFor(seed, 'vehicle', role.index);
  const ev = role.powertrain === 'electric';
  const makes = MAKES.filter((m) => (m.kind === 'ev') === ev);
  const make = r.pick(makes);
  const letters = r.chars(3);
  const digits = String(r.int(100, 999));
  const vehicle_id = FIRST_VEHICLE_ID + role.index;
  const fittedMs = historyStartMs - r.int(30, 900) * DAY;
  return {
    vehicle_id,
    registration: plateOf(role.index, letters, digits),
    vehicle_name: `${make.model} ${String(role.index + 1).padStart(2, '0')}`,
    department: role.department,
    manufacturer: make.manufacturer,
    model: make.model,
    model_year: r.int(2015, 2025),
    chassis_number: r.chars(17, 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789'),
    powertrain: role.powertrain,
    sensors: sensorsOf(role.powertrain),
    consumption_l_per_100km: ev ? 0 : Math.round(r.real(6, 14) * 10) / 10,
    tank_l: ev ? 0 : make.tank,
    terminals: [
      { serial: `CT${r.int(10_000_000, 99_999_999)}`, from_ms: Math.floor(fittedMs / 1000) * 1000 },
    ],
    report_delay_ms: role.reportDelayMs,
  };
}
