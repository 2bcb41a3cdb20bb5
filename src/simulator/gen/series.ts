/**
 * One vehicle's measured series, built from its trip timetable: trip records with reported
 * odometers, the odometer events (reset, tracker change) applied as offsets while parked, the
 * fuel burned (distance × consumption, linear inside a trip) that drives both the ECU counter and
 * the tank level, and the fills that top the tank up at trip ends.
 */
import type { FuelCounterReset, OdometerEvent, SimFill, SimFuelDrop, SimTrip, SimVehicle } from '../model.ts';
import { STATIONS } from './places.ts';
import { rngFor } from './prng.ts';
import type { RawTrip } from './trips.ts';
import { MINUTE } from './vehicles.ts';

export interface PlannedOdometerEvent {
  at_ms: number;
  kind: OdometerEvent['kind'];
}

export interface VehicleSeries {
  trips: SimTrip[];
  /** True cumulative distance at each trip's start (metres from the start of history). */
  cumStart: Float64Array;
  events: OdometerEvent[];
  /** Reported = base + true cumulative + offset of the last event at or before the instant. */
  base: number;
  offsets: number[]; // offsets[k] applies from events[k].at_ms; offset 0 before the first event
  counterStart: number;
  counterReset: FuelCounterReset | null;
  fills: SimFill[];
  fillCum: Float64Array; // litres filled up to and including fill k
  drops: SimFuelDrop[];
  levelStart: number;
}

/** Index of the last element with key(x) <= ms (items ordered by key), or -1. */
export function lastAtOrBefore<T>(items: readonly T[], ms: number, key: (x: T) => number): number {
  return firstWhere(items, (x) => key(x) > ms) - 1;
}

/**
 * Index of the first item for which `holds` is true, in items ordered so that it is false up to
 * some index and true from there on (binary search); `items.length` when it holds for none.
 */
export function firstWhere<T>(items: readonly T[], holds: (x: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(items[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const tripStart = (t: SimTrip) => t.start_ms;

/** True distance driven from the start of history up to `ms`. */
export function trueCumAt(s: VehicleSeries, ms: number): number {
  const i = lastAtOrBefore(s.trips, ms, tripStart);
  if (i < 0) return 0;
  const t = s.trips[i]!;
  const c = s.cumStart[i]!;
  if (ms >= t.end_ms) return c + t.distance_m;
  return c + (t.distance_m * (ms - t.start_ms)) / (t.end_ms - t.start_ms);
}

function offsetAt(s: VehicleSeries, ms: number): number {
  const k = lastAtOrBefore(s.events, ms, (e) => e.at_ms);
  return k < 0 ? 0 : s.offsets[k]!;
}

export function odometerOf(s: VehicleSeries, ms: number): number {
  return Math.round(s.base + trueCumAt(s, ms) + offsetAt(s, ms));
}

export const burnedL = (v: SimVehicle, metres: number) => (metres * v.consumption_l_per_100km) / 100_000;

export function buildSeries(
  seed: number,
  index: number,
  v: SimVehicle,
  raw: readonly RawTrip[],
  planned: readonly PlannedOdometerEvent[],
  counterResetMs: number | null,
  listedTwiceFill: boolean,
  dropCount = 0,
): VehicleSeries {
  const r = rngFor(seed, 'series', index);
  const base = r.int(20_000, 180_000) * 1000 + r.int(0, 999);
  const cumStart = new Float64Array(raw.length);
  const events: OdometerEvent[] = [];
  const offsets: number[] = [];
  const plan = [...planned].sort((a, b) => a.at_ms - b.at_ms);
  let cum = 0;
  let offset = 0;
  let p = 0;
  const trips: SimTrip[] = new Array<SimTrip>(raw.length);
  const applyEventsUpTo = (ms: number) => {
    while (p < plan.length && plan[p]!.at_ms <= ms) {
      const e = plan[p++]!;
      const before = Math.round(base + cum + offset);
      const after = e.kind === 'odometer_reset' ? r.int(0, 400) : Math.round(before * r.real(0.35, 0.8));
      offset = after - (base + cum);
      events.push({
        vehicle_id: v.vehicle_id,
        at_ms: e.at_ms,
        kind: e.kind,
        reading_before_m: before,
        reading_after_m: after,
      });
      offsets.push(offset);
    }
  };
  const idPrefix = `${v.vehicle_id}`;
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i]!;
    applyEventsUpTo(t.start);
    cumStart[i] = cum;
    const startOdo = Math.round(base + cum + offset);
    trips[i] = {
      trip_id: `${idPrefix}${String(i + 1).padStart(6, '0')}`,
      vehicle_id: v.vehicle_id,
      registration: v.registration,
      start_ms: t.start,
      end_ms: t.end,
      distance_m: t.dist,
      start_odometer_m: startOdo,
      end_odometer_m: startOdo + t.dist,
      driver_id: t.driver,
      start_location: t.from,
      end_location: t.to,
    };
    cum += t.dist;
  }
  applyEventsUpTo(Number.MAX_SAFE_INTEGER);

  const counterStart = Math.round(r.real(4_000, 60_000) * 100) / 100;
  const counterReset = counterResetMs === null ? null : { vehicle_id: v.vehicle_id, at_ms: counterResetMs };

  const hasLevel = v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level;
  const levelStart = hasLevel ? Math.round(v.tank_l * r.real(0.5, 0.95) * 100) / 100 : 0;
  const fills: SimFill[] = [];
  const drops: SimFuelDrop[] = [];
  // Staged drops go into parked gaps of ≥ 4 h after trips spread over the history, where the tank
  // keeps enough for the next trip; a drop starts 1–2 h after the trip and lasts 8–20 minutes.
  const dr = rngFor(seed, 'drops', index);
  let nextDrop = 0;
  const dropFrom = (k: number) => Math.floor((trips.length * (k + 1)) / (dropCount + 1));
  if (hasLevel) {
    let level = levelStart;
    for (let i = 0; i < trips.length; i++) {
      const t = trips[i]!;
      level -= burnedL(v, t.distance_m);
      const next = trips[i + 1];
      const needNext = next ? burnedL(v, next.distance_m) : 0;
      if (level < 0.25 * v.tank_l || level - needNext < 0.08 * v.tank_l) {
        const gap = next ? next.start_ms - t.end_ms : 10 * MINUTE;
        const at_ms = t.end_ms + Math.min(2 * MINUTE, Math.floor(gap / 2000) * 1000);
        const target = v.tank_l * r.real(0.92, 1);
        const litres = Math.round((target - level) * 100) / 100;
        level += litres;
        const fill: SimFill = {
          vehicle_id: v.vehicle_id,
          at_ms,
          litres,
          odometer_m: t.end_odometer_m,
          location: r.pick(STATIONS),
        };
        fills.push(fill);
        continue;
      }
      if (
        nextDrop < dropCount &&
        next &&
        i >= dropFrom(nextDrop) &&
        next.start_ms - t.end_ms >= 4 * 3_600_000
      ) {
        const litres = Math.round(dr.real(12, 25) * 10) / 10;
        if (level - litres - needNext >= 0.3 * v.tank_l) {
          const start_ms = t.end_ms + dr.int(60, 120) * MINUTE;
          const end_ms = start_ms + dr.int(8, 20) * MINUTE;
          const before = Math.round(level * 100) / 100;
          level -= litres;
          drops.push({
            vehicle_id: v.vehicle_id,
            start_ms,
            end_ms,
            litres,
            level_before_l: before,
            level_after_l: Math.round(level * 100) / 100,
          });
          nextDrop++;
        }
      }
    }
    const twice = fills[1] ?? fills[0];
    if (listedTwiceFill && twice) twice.listed_twice = true;
  }
  const fillCum = new Float64Array(fills.length);
  let acc = 0;
  fills.forEach((f, k) => (fillCum[k] = acc += f.litres));
  return {
    trips,
    cumStart,
    events,
    base,
    offsets,
    counterStart,
    counterReset,
    fills,
    fillCum,
    drops,
    levelStart,
  };
}

export function fuelCounterOf(v: SimVehicle, s: VehicleSeries, ms: number): number | null {
  if (!v.sensors.fuel_canbus_consumed) return null;
  const burned = burnedL(v, trueCumAt(s, ms));
  const reset = s.counterReset;
  if (reset && ms >= reset.at_ms) return burned - burnedL(v, trueCumAt(s, reset.at_ms));
  return s.counterStart + burned;
}

export function fuelLevelOf(v: SimVehicle, s: VehicleSeries, ms: number): number | null {
  if (!(v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level)) return null;
  const k = lastAtOrBefore(s.fills, ms, (f) => f.at_ms);
  const filled = k < 0 ? 0 : s.fillCum[k]!;
  return s.levelStart - burnedL(v, trueCumAt(s, ms)) + filled - droppedL(s, ms);
}

/** Litres lost to staged drops up to `ms` (linear inside a drop). */
export function droppedL(s: VehicleSeries, ms: number): number {
  let sum = 0;
  for (const d of s.drops) {
    if (ms >= d.end_ms) sum += d.litres;
    else if (ms > d.start_ms) sum += (d.litres * (ms - d.start_ms)) / (d.end_ms - d.start_ms);
  }
  return sum;
}
