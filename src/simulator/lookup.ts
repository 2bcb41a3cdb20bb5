/**
 * Lookups whose cost per request does not grow with the fleet: indexes built once per fleet (kept
 * as long as it lives, in WeakMaps), binary searches over a vehicle's ordered history, and the rows
 * of a window kept across its pages with the instant from which all of them have reached the API.
 * They change no answer: each returns what the linear scan it replaces returned, in its order.
 */
import { firstWhere } from './gen/series.ts';
import type { Fleet, SimVehicle } from './model.ts';

/** A value built on first use from a key object and kept while the key lives. */
export function perKey<K extends object, V>(build: (key: K) => V): (key: K) => V {
  const kept = new WeakMap<K, V>();
  return (key) => {
    let v = kept.get(key);
    if (v === undefined) kept.set(key, (v = build(key)));
    return v;
  };
}

/**
 * The items of `items` (ordered by `key`) with `fromMs <= key < toMs`, in order: what
 * `items.filter((x) => key(x) >= fromMs && key(x) < toMs)` returns.
 */
export function sliceByKey<T>(items: readonly T[], fromMs: number, toMs: number, key: (x: T) => number): T[] {
  const i = firstWhere(items, (x) => key(x) >= fromMs);
  const j = firstWhere(items, (x) => key(x) >= toMs);
  return items.slice(i, Math.max(i, j));
}

/** Vehicles by registration, the first of the list for a plate (as `find` returns it). */
const byRegistration = perKey((vehicles: readonly SimVehicle[]) => {
  const m = new Map<unknown, SimVehicle>();
  for (const v of vehicles) if (!m.has(v.registration)) m.set(v.registration, v);
  return m;
});

/** The fleet's vehicle whose plate is exactly `registration` (any value: only a plate matches). */
export const findVehicle = (fleet: Fleet, registration: unknown): SimVehicle | undefined =>
  byRegistration(fleet.vehicles).get(registration);

/** Position of each vehicle in the fleet's list (what `fleet.vehicles.indexOf(v)` returns). */
const positions = perKey((vehicles: readonly SimVehicle[]) => {
  const m = new Map<SimVehicle, number>();
  vehicles.forEach((v, i) => {
    if (!m.has(v)) m.set(v, i);
  });
  return m;
});

export const vehiclePosition = (fleet: Fleet, v: SimVehicle): number =>
  positions(fleet.vehicles).get(v) ?? -1;

/** The fleet's odometer events of one vehicle, in the fleet list's order. */
const eventsByVehicle = perKey((events: Fleet['odometerEvents']) => {
  const m = new Map<number, Fleet['odometerEvents'][number][]>();
  for (const e of events) {
    let list = m.get(e.vehicle_id);
    if (!list) m.set(e.vehicle_id, (list = []));
    list.push(e);
  }
  return m;
});

export const odometerEventsOf = (fleet: Fleet, vehicleId: number) =>
  eventsByVehicle(fleet.odometerEvents).get(vehicleId) ?? [];

/**
 * How far the vehicle's data has reached the API at `now`: its report delay, and while a silence
 * lasts (until its backlog upload) no further than the silence's start.
 */
export const horizonOf = (v: SimVehicle, now: number) =>
  v.silence && now < v.silence.upload_ms
    ? Math.min(now - v.report_delay_ms, v.silence.from_ms)
    : now - v.report_delay_ms;

/**
 * The first instant `now` at which a record of `v` ending at `endMs` has reached the API, i.e.
 * from which `endMs <= horizonOf(v, now)` holds: after the report delay, and for a record after
 * the start of a silence not before its upload. Infinity when the arithmetic is not exact (not
 * whole milliseconds), so that callers check each record.
 */
export function reachedFrom(v: SimVehicle, endMs: number): number {
  const at = endMs + v.report_delay_ms;
  if (!Number.isSafeInteger(endMs) || !Number.isSafeInteger(at)) return Infinity;
  const s = v.silence;
  return s && endMs > s.from_ms ? Math.max(at, s.upload_ms) : at;
}

/** Rows of one window, in their answer's order, with the instant from which all have reached the API. */
interface Kept<T> {
  rows: readonly T[];
  allFrom: number;
}

/**
 * The rows of recent windows, kept across their pages: a sync asks for the same window page after
 * page, so the rows are gathered and sorted once, and each page only keeps those that have reached
 * the API by now (all of them, without a look at each, once `now` is past the last).
 */
export class WindowRows<T> {
  private readonly perFleet = new WeakMap<Fleet, Map<string, Kept<T>>>();

  constructor(
    private readonly vehicleOf: (row: T) => SimVehicle,
    private readonly endOf: (row: T) => number,
    /** Windows kept per fleet: a sync has several in flight, each asked page after page. */
    private readonly size = 32,
  ) {}

  visible(fleet: Fleet, key: string, now: number, gather: () => T[]): readonly T[] {
    let kept = this.perFleet.get(fleet);
    if (!kept) this.perFleet.set(fleet, (kept = new Map()));
    let k = kept.get(key);
    if (!k) {
      const rows = gather();
      let allFrom = -Infinity;
      for (const r of rows) allFrom = Math.max(allFrom, reachedFrom(this.vehicleOf(r), this.endOf(r)));
      k = { rows, allFrom };
      if (kept.size >= this.size) kept.delete(kept.keys().next().value!);
      kept.set(key, k);
    }
    if (now >= k.allFrom) return k.rows;
    return k.rows.filter((r) => this.endOf(r) <= horizonOf(this.vehicleOf(r), now));
  }
}
