/**
 * Trips: fleet-wide GET /trips over ≤31-day windows; a trip returned by two windows is stored
 * once. A window's trips are held until its write, so a window is at most MAX_WINDOW_RECORDS
 * trips: a month the history says holds more is planned in pieces (cut at local midnights), and
 * a window whose first page's `total` says it holds more is fetched again in pieces.
 */
import { TooManyRecords } from '../../api/paginate.ts';
import type { Trip } from '../../api/types.ts';
import { PAGE_LIMIT } from '../../defaults.ts';
import { defineStream } from '../stream.ts';
import { DAY_MS, iso } from '../../time.ts';
import { pointWindow, type Unit } from '../unit.ts';
import { splitEvenly, type Window } from '../windows.ts';

/** Pieces are sized for this share of the bound, so a busier day in a piece does not push it over. */
const FILL = 0.8;

/** `w` in pieces of about `records / pieces` ≤ FILL × `max` records each (one piece when it fits). */
export function piecesFor(w: Window, records: number, max: number, zone: string): Window[] {
  return splitEvenly(w, Math.ceil(records / (FILL * max)), zone);
}

/** A trip's row: the record's fields under their column names (its instants as start/end_time). */
export const tripRow = (account: string, t: Trip) => {
  const { start_ms, end_ms, ...same } = t;
  return {
    account,
    ...same,
    start_time: start_ms,
    end_time: end_ms,
    // a trip the API sent no type for has no type to know
    trip_type_known: t.trip_type === null ? null : t.trip_type_known,
  };
};

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
      // A window that cannot be cut (one hour) is fetched whole whatever it holds.
      const canSplit = splitEvenly(w, 2, ctx.zone).length > 1;
      let trips: Trip[];
      try {
        trips = await ctx.client.listTrips(w.startMs, w.endMs, undefined, {
          meter,
          signal: ctx.signal,
          ...(canSplit ? { maxRecords: ctx.maxWindowRecords } : {}),
        });
      } catch (e) {
        if (!(e instanceof TooManyRecords)) throw e;
        const pieces = piecesFor(w, e.total, ctx.maxWindowRecords, ctx.zone);
        const pages = Math.max(1, Math.ceil(e.total / pieces.length / PAGE_LIMIT));
        return { split: pieces.map((p) => tripUnit(p, pages)) };
      }
      // Trips are placed by their start: one answer covers the window, the ledger says which part
      // has settled. The window owns the trips that start inside it; trips overlapping its edges
      // are merged.
      return pointWindow(ctx, {
        stream: 'trips',
        window: w,
        table: 'trips',
        at: 'start_time',
        key: ['account', 'trip_id'],
        rows: trips.map((t) => tripRow(ctx.account, t)),
        times: trips.map((t) => t.start_ms),
        requests: meter.requests,
      });
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
  // A window's trips are held in memory until its write: one window at a time (its pages are
  // fetched several at once, see paginate.ts). Its own limiter, not the shared pool: the trips
  // windows are the longest request chain, so the next one must not queue behind the
  // per-vehicle units (it then spilled into the next limit window and made the tail).
  maxInFlight: 1,
  async plan(ctx) {
    const months = ctx.grid('month');
    const perDay = ctx.rates.tripsPerDay;
    return (await ctx.gaps('trips', months, '*')).flatMap((month) =>
      piecesFor(month, (perDay * (month.endMs - month.startMs)) / DAY_MS, ctx.maxWindowRecords, ctx.zone).map(
        (w) => tripUnit(w, ctx.pages(perDay, w)),
      ),
    );
  },
});
