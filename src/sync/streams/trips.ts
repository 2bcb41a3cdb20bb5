/** Trips: fleet-wide GET /trips over ≤31-day windows; a trip returned by two windows is stored once. */
import type { Trip } from '../../api/types.ts';
import { iso, pointLedger, type Unit } from '../unit.ts';
import type { Window } from '../windows.ts';

export const tripRow = (account: string, t: Trip) => ({
  account,
  trip_id: t.trip_id,
  vehicle_id: t.vehicle_id,
  registration: t.registration,
  start_time: t.start_ms,
  end_time: t.end_ms,
  trip_distance_m: t.trip_distance_m,
  start_odometer_m: t.start_odometer_m,
  end_odometer_m: t.end_odometer_m,
  driver_id: t.driver_id,
  start_location: t.start_location,
  end_location: t.end_location,
});

export function tripUnit(w: Window, estPages: number): Unit {
  return {
    stream: 'trips',
    ledgerStream: 'trips',
    scope: '*',
    window: w,
    bucket: 'default',
    estRequests: estPages,
    label: `trips ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const trips = await ctx.client.listTrips(w.startMs, w.endMs, undefined, { meter, signal: ctx.signal });
      return {
        // Trips are placed by their start: one answer covers the window, the ledger says which
        // part has settled.
        ledger: pointLedger(
          ctx,
          'trips',
          '*',
          w,
          trips.map((t) => t.start_ms),
          meter.requests,
        ),
        // The window owns the trips that start inside it; trips overlapping its edges are merged.
        deletes: [{ table: 'trips', eq: {}, at: 'start_time', startMs: w.startMs, endMs: w.endMs }],
        inserts: [
          { table: 'trips', key: ['account', 'trip_id'], rows: trips.map((t) => tripRow(ctx.account, t)) },
        ],
        rows: trips.length,
      };
    },
  };
}
