/**
 * What the real API says about a trip beyond times, distance and places (wire notes §5.3), with
 * the simulator's ground truth: its type (mostly Business, some Private, a few unclassified
 * `None`), title and notes, harsh braking / acceleration / cornering and speeding events, its
 * maximum speed and the geofences it starts and ends in. Fixed by the trip's id (and its driver
 * or vehicle for the driving style), so no other draw of the generator moves and asking for a
 * trip twice gives the same answer.
 */
import type { SimTrip } from '../model.ts';
import { DEPOTS, SITES } from './places.ts';
import { rngFor, subSeed, type Rng } from './prng.ts';

export type TripType = 'None' | 'Business' | 'Private';

export interface TripTraits {
  trip_type: TripType;
  is_private: boolean;
  trip_title: string | null;
  trip_extra_notes: string | null;
  harsh_braking_events: number;
  harsh_acceleration_events: number;
  harsh_cornering_events: number;
  road_speeding_events: number;
  road_speeding_duration_seconds: number;
  thresholds_speeding_events: number;
  thresholds_speeding_duration_seconds: number;
  /** km/h. */
  max_speed: number;
  /** The geofence (depot or customer site) the trip starts / ends in; null elsewhere. */
  start_geofence_name: string | null;
  end_geofence_name: string | null;
}

/** Shares of the trip types (the rest is `None`, a trip nobody classified). */
export const BUSINESS_SHARE = 0.8;
export const PRIVATE_SHARE = 0.12;

/** Events per 100 km for an average driver. */
const PER_100_KM = { braking: 3, acceleration: 2, cornering: 1.5, road: 4, thresholds: 2 };

const GEOFENCED: ReadonlySet<string> = new Set<string>([...DEPOTS, ...SITES]);
const NOTES = ['Parts delivered', 'Quote follow-up', 'Site inspection', 'Collected returns'];

/** A Poisson draw of mean `mean` (inverse transform; means here stay small). */
function poisson(r: Rng, mean: number): number {
  const u = r.next();
  let p = Math.exp(-mean);
  let sum = p;
  let k = 0;
  while (u > sum && k < 1000) {
    k++;
    p *= mean / k;
    sum += p;
  }
  return k;
}

/** The seconds of `n` speeding events, 5–90 s each. */
const durations = (r: Rng, n: number) =>
  Array.from({ length: n }, () => r.int(5, 90)).reduce((a, b) => a + b, 0);

const typeOf = (u: number): TripType =>
  u < BUSINESS_SHARE ? 'Business' : u < BUSINESS_SHARE + PRIVATE_SHARE ? 'Private' : 'None';

/** The trip's type alone (the first draw of tripTraits), for the route's private filter. */
export const tripTypeOf = (t: SimTrip): TripType => typeOf(rngFor(0x7819, t.trip_id).next());

export function tripTraits(t: SimTrip): TripTraits {
  const r = rngFor(0x7819, t.trip_id);
  const trip_type = typeOf(r.next());
  // A driver's (else the vehicle's) style: 0.4× to 2× the average event rates.
  const style = 0.4 + (subSeed(0x571e, t.driver_id ?? t.registration) / 2 ** 32) * 1.6;
  const per100 = (rate: number) => (rate * style * t.distance_m) / 100_000;
  const harsh_braking_events = poisson(r, per100(PER_100_KM.braking));
  const harsh_acceleration_events = poisson(r, per100(PER_100_KM.acceleration));
  const harsh_cornering_events = poisson(r, per100(PER_100_KM.cornering));
  const road_speeding_events = poisson(r, per100(PER_100_KM.road));
  const thresholds_speeding_events = poisson(r, per100(PER_100_KM.thresholds));
  const road_speeding_duration_seconds = durations(r, road_speeding_events);
  const thresholds_speeding_duration_seconds = durations(r, thresholds_speeding_events);
  const avgKmh = t.distance_m / 1000 / Math.max(1 / 60, (t.end_ms - t.start_ms) / 3_600_000);
  const speeding = road_speeding_events + thresholds_speeding_events > 0 ? r.int(8, 25) : 0;
  const max_speed = Math.min(150, Math.round(avgKmh * r.real(1.3, 1.7)) + speeding);
  const business = trip_type === 'Business';
  const note = r.next();
  return {
    trip_type,
    is_private: trip_type === 'Private',
    trip_title: business ? `Visit ${t.end_location}` : null,
    trip_extra_notes: business && note < 0.25 ? NOTES[Math.floor(note * 4 * NOTES.length)]! : null,
    harsh_braking_events,
    harsh_acceleration_events,
    harsh_cornering_events,
    road_speeding_events,
    road_speeding_duration_seconds,
    thresholds_speeding_events,
    thresholds_speeding_duration_seconds,
    max_speed,
    start_geofence_name: GEOFENCED.has(t.start_location) ? t.start_location : null,
    end_geofence_name: GEOFENCED.has(t.end_location) ? t.end_location : null,
  };
}
