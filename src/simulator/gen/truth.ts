/**
 * Ground truth over a fleet: what really happened, computed from the same per-vehicle series
 * that drive the simulated API (so reports can be checked to the metre and the litre).
 */
import type {
  BookingView,
  GroundTruth,
  LogbookTruth,
  SimBooking,
  SimTrip,
  SimVehicle,
  SimVisit,
} from '../model.ts';
import { tripTypeOf } from './trip-traits.ts';
import { burnedL, firstWhere, trueCumAt, type VehicleSeries } from './series.ts';

export interface TruthSource {
  vehicles: readonly SimVehicle[];
  tollIds: ReadonlySet<string>;
  bookings: readonly SimBooking[];
  seriesOf(vehicleId: number): VehicleSeries | undefined;
  visitsOf(vehicleId: number): readonly SimVisit[];
  bookingAt(b: SimBooking, nowMs: number): BookingView;
}

/** Index of the first element with key(x) > ms (items sorted by key). */
const firstAfter = <T>(items: readonly T[], ms: number, key: (x: T) => number) =>
  firstWhere(items, (x) => key(x) > ms);

/** Index of the first element with key(x) >= ms. */
const firstAtOrAfter = <T>(items: readonly T[], ms: number, key: (x: T) => number) =>
  firstAfter(items, ms - 1, key);

export function tripsOverlapping(trips: readonly SimTrip[], fromMs: number, toMs: number): SimTrip[] {
  const out: SimTrip[] = [];
  // Trips of one vehicle do not overlap, so ends are sorted too.
  for (let i = firstAfter(trips, fromMs, (t) => t.end_ms); i < trips.length && trips[i]!.start_ms < toMs; i++)
    out.push(trips[i]!);
  return out;
}

const byVisit = (a: SimVisit, b: SimVisit) =>
  a.enter_ms - b.enter_ms || a.vehicle_id - b.vehicle_id || (a.geofence_id < b.geofence_id ? -1 : 1);

export function makeTruth(src: TruthSource): Omit<GroundTruth, 'fuelDrops'> {
  const distanceM = (vehicleId: number, fromMs: number, toMs: number) => {
    const s = src.seriesOf(vehicleId);
    if (!s || toMs <= fromMs) return 0;
    return trueCumAt(s, toMs) - trueCumAt(s, fromMs);
  };
  const visits = (fromMs: number, toMs: number, tollOnly: boolean) => {
    const out: SimVisit[] = [];
    for (const v of src.vehicles) {
      const vs = src.visitsOf(v.vehicle_id);
      for (
        let i = firstAtOrAfter(vs, fromMs, (x) => x.enter_ms);
        i < vs.length && vs[i]!.enter_ms < toMs;
        i++
      ) {
        const x = vs[i]!;
        if (!tollOnly || src.tollIds.has(x.geofence_id)) out.push(x);
      }
    }
    return out.sort(byVisit);
  };
  return {
    distanceM,
    fuelUsedL(vehicleId, fromMs, toMs) {
      const v = src.vehicles.find((x) => x.vehicle_id === vehicleId);
      return v ? burnedL(v, distanceM(vehicleId, fromMs, toMs)) : 0;
    },
    trips(fromMs, toMs) {
      const out: SimTrip[] = [];
      for (const v of src.vehicles) {
        const s = src.seriesOf(v.vehicle_id);
        if (s) out.push(...tripsOverlapping(s.trips, fromMs, toMs));
      }
      return out.sort(
        (a, b) => a.start_ms - b.start_ms || (a.trip_id < b.trip_id ? -1 : a.trip_id > b.trip_id ? 1 : 0),
      );
    },
    logbookKm(vehicleId, fromMs, toMs, leaveOut = []) {
      const out: LogbookTruth = {
        business_m: 0,
        private_m: 0,
        unclassified_m: 0,
        trips: 0,
        left_out_m: 0,
        left_out_trips: 0,
      };
      for (const t of src.seriesOf(vehicleId)?.trips ?? []) {
        if (t.start_ms < fromMs || t.start_ms >= toMs) continue;
        out.trips++;
        if (leaveOut.some(([a, b]) => t.start_ms < b && t.end_ms > a)) {
          out.left_out_m += t.distance_m;
          out.left_out_trips++;
          continue;
        }
        const type = tripTypeOf(t);
        if (type === 'Business') out.business_m += t.distance_m;
        else if (type === 'Private') out.private_m += t.distance_m;
        else out.unclassified_m += t.distance_m;
      }
      return out;
    },
    tollVisits: (fromMs, toMs) => visits(fromMs, toMs, true),
    visits: (fromMs, toMs) => visits(fromMs, toMs, false),
    bookings(fromMs, toMs, nowMs) {
      return src.bookings
        .filter((b) => b.created_ms <= nowMs && b.start_ms < toMs && b.end_ms > fromMs)
        .map((b) => src.bookingAt(b, nowMs))
        .sort(
          (a, b) => a.booking.start_ms - b.booking.start_ms || a.booking.booking_id - b.booking.booking_id,
        );
    },
  };
}
