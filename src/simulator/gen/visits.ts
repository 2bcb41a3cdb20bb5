/**
 * Geofence visits derived from a vehicle's trips. A stay at a geofenced depot or customer site
 * runs from shortly before the trip arriving there ends to shortly after the next trip (leaving
 * from there) starts: the time on site, overnight stays at a depot included. Toll gantries and
 * plazas are passed mid-trip for 5–90 s on longer trips. A stay the vehicle has not left (its
 * last trip ends there) is not a visit yet: the API lists a visit only once the vehicle has left.
 * The first trip's departure from a site is a visit entered just after that trip starts (the
 * arrival lies before the history), an arrival not followed by a departure from the same place
 * ends a second before its trip does.
 */
import type { SimTrip, SimVisit } from '../model.ts';
import type { Places } from './places.ts';
import { rngFor } from './prng.ts';

export function visitsOfTrips(
  seed: number,
  index: number,
  trips: readonly SimTrip[],
  places: Places,
): SimVisit[] {
  const r = rngFor(seed, 'visits', index);
  const out: SimVisit[] = [];
  // The stay begun by the previous recorded trip's arrival, waiting for the next departure.
  let stay: { geofence_id: string; location: string; enter_ms: number; end_ms: number } | null = null;
  for (const t of trips) {
    const dur = t.end_ms - t.start_ms;
    const u = r.next();
    const tollCount = t.distance_m > 12_000 && u < 0.5 ? (u < 0.15 ? 2 : 1) : 0;
    const g1 = r.pick(places.tolls);
    const g2 = r.pick(places.tolls);
    const f = r.real(0.25, 0.55);
    const leave = r.int(60, 240) * 1000;
    const arrive = r.int(90, 240) * 1000;
    const dwell = [r.int(5, 90) * 1000, r.int(5, 90) * 1000] as const;
    if (dur < 6 * 60_000) continue; // too short to pass anything recorded
    const visit = (geofence_id: string, enter_ms: number, exit_ms: number) =>
      out.push({ vehicle_id: t.vehicle_id, registration: t.registration, geofence_id, enter_ms, exit_ms });
    const from = places.byLocation.get(t.start_location);
    if (stay && stay.location === t.start_location)
      visit(stay.geofence_id, stay.enter_ms, t.start_ms + leave);
    else {
      if (stay) visit(stay.geofence_id, stay.enter_ms, stay.end_ms - 1000);
      if (from) visit(from, t.start_ms + 1000, t.start_ms + leave);
    }
    stay = null;
    const gs = [g1, g2];
    for (let k = 0; k < tollCount; k++) {
      const enter = t.start_ms + Math.floor((dur * (f + 0.3 * k)) / 1000) * 1000;
      visit(gs[k]!.geofence_id, enter, Math.min(enter + dwell[k]!, t.end_ms - 1000));
    }
    const to = places.byLocation.get(t.end_location);
    if (to)
      stay = { geofence_id: to, location: t.end_location, enter_ms: t.end_ms - arrive, end_ms: t.end_ms };
  }
  return out.sort((a, b) => a.enter_ms - b.enter_ms);
}
