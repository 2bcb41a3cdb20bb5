/** Trips: fleet-wide GET /trips over ≤31-day windows; a trip returned by two windows is stored once. */
import type { Trip } from '../../api/types.ts';
import { pointLedger } from '../ledger.ts';
import { defineStream } from '../stream.ts';
import { iso, type Unit } from '../unit.ts';
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

export const trips = defineStream({
  name: 'trips',
  ledgerStreams: ['trips'],
  grid: 'month',
  scope: 'fleet',
  endpoints: ['GET /trips'],
  buckets: ['default'],
  tables: ['trips'],
  startOrder: 0,
  // A month of the whole fleet's trips is held in memory: one window at a time (its pages are
  // fetched several at once, see paginate.ts). Its own limiter, not the shared pool: the trips
  // windows are the longest request chain, so the next one must not queue behind the
  // per-vehicle units (it then spilled into the next limit window and made the tail).
  maxInFlight: 1,
  async plan(ctx) {
    const months = ctx.grid('month');
    return (await ctx.gaps('trips', months, '*')).map((w) =>
      tripUnit(w, ctx.pages(ctx.rates.tripsPerDay, w)),
    );
  },
});
