/**
 * Geofence visits derived from a vehicle's trips, each strictly inside one trip: leaving a
 * geofenced depot/site shortly after the trip starts, arriving at one shortly before it ends,
 * and toll gantries/plazas passed mid-trip for 5–90 s on longer trips.
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
    if (from) visit(from, t.start_ms + 1000, t.start_ms + leave);
    const gs = [g1, g2];
    for (let k = 0; k < tollCount; k++) {
      const enter = t.start_ms + Math.floor((dur * (f + 0.3 * k)) / 1000) * 1000;
      visit(gs[k]!.geofence_id, enter, Math.min(enter + dwell[k]!, t.end_ms - 1000));
    }
    const to = places.byLocation.get(t.end_location);
    if (to) visit(to, t.end_ms - arrive, t.end_ms - 1000);
  }
  return out.sort((a, b) => a.enter_ms - b.enter_ms);
}
