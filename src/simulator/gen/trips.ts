/**
 * Trip timetables of ordinary (non-carpool) vehicles: weekday-heavy working days in local time,
 * starting and ending at the vehicle's depot, with late-night runs that cross local midnight
 * (always on the last day of a month) for night-run vehicles. Only times, distances and places
 * here; odometers and fuel are layered on in series.ts.
 */
import type { Calendar } from './calendar.ts';
import { DESTINATIONS, homeDepotOf } from './places.ts';
import { Rng, rngFor } from './prng.ts';
import { HOUR, MINUTE, type VehicleRole } from './vehicles.ts';

/** A trip before odometers: instants (whole seconds), true distance and places. */
export interface RawTrip {
  start: number;
  end: number;
  dist: number;
  driver: string | null;
  from: string;
  to: string;
}

/** A drive of `minutes` (plus random seconds) at 20–90 km/h. */
export function drive(
  r: Rng,
  start: number,
  minutes: number,
  from: string,
  to: string,
  driver: string | null,
): RawTrip {
  const end = start + minutes * MINUTE + r.int(0, 59) * 1000;
  const kmh = r.real(20, 90);
  const dist = Math.max(1, Math.round((kmh * 1000 * (end - start)) / HOUR));
  return { start, end, dist, driver, from, to };
}

/**
 * A vehicle's regular (default) driver among the fleet's active drivers, by its position in the
 * fleet: every fifth vehicle has none. An ordinary vehicle's trips record this driver (its trips
 * are the reports' "no driver recorded" when it has none), and GET /vehicles/status falls back to
 * it (spec/status.ts). No draw of the generator moves.
 */
export function regularDriverOf<D>(index: number, active: readonly D[]): D | null {
  if (index < 0 || index % 5 === 4 || active.length === 0) return null;
  return active[index % active.length] ?? null;
}

export function ordinaryTrips(
  seed: number,
  role: VehicleRole,
  cal: Calendar,
  driver: string | null = null,
): RawTrip[] {
  const r = rngFor(seed, 'trips', role.index);
  const depot = homeDepotOf(role.index);
  const out: RawTrip[] = [];
  const lastIndex = cal.days.length - 1;
  const fewer = role.powertrain === 'electric' || role.department === 'Executive' ? 2 : 0;
  for (const day of cal.days) {
    // Draw the same numbers every day so one day's choices never shift another's.
    const weekend = day.weekday === 0 || day.weekday === 6;
    const base = weekend ? (r.chance(0.45) ? r.int(1, 3) : 0) : r.int(5, 12);
    const night = role.nightRuns && day.index < lastIndex && (day.lastOfMonth || r.chance(0.2));
    const parked = role.parked !== null && day.index >= role.parked[0] && day.index < role.parked[1];
    if (parked) continue;
    const n = Math.max(0, base - fewer);
    let t = day.startMs + r.int(6 * 60 + 30, 9 * 60) * MINUTE;
    let at = depot;
    const latest = day.startMs + 20.5 * HOUR;
    for (let k = 0; k < n; k++) {
      let to = k === n - 1 ? depot : r.pick(DESTINATIONS);
      if (to === at) to = depot === at ? r.pick(DESTINATIONS) : depot;
      const minutes = r.chance(0.7) ? r.int(8, 35) : r.int(36, 70);
      const trip = drive(r, t, minutes, at, to, driver);
      if (trip.end > latest) break;
      out.push(trip);
      at = to;
      t = trip.end + r.int(5, 60) * MINUTE + r.int(0, 59) * 1000;
    }
    if (night) {
      const start = day.endMs - r.int(15, 50) * MINUTE;
      const minutes = Math.round((day.endMs - start) / MINUTE) + r.int(10, 70);
      out.push(drive(r, start, minutes, depot, depot, driver)); // a delivery run out and back
    }
  }
  return out;
}
