/**
 * Carpool bookings: GET /carpool/bookings over ≤31-day windows of the scheduled window, upserted
 * by booking_id. Each observed status change is kept with when it was seen
 * (carpool_booking_history). A window holding a booking not yet in a final status stays
 * incomplete, so later runs pull it again until every booking in it has settled.
 */
import { FINAL_BOOKING_STATUSES, type Booking } from '../../api/types.ts';
import { BOOKINGS_AHEAD_DAYS } from '../../defaults.ts';
import { queryJs } from '../../store/queries.ts';
import { upsertRows } from '../../store/write.ts';
import { settledStatus } from '../ledger.ts';
import { defineStream } from '../stream.ts';
import { DAY_MS, iso } from '../../time.ts';
import type { Unit } from '../unit.ts';
import type { Window } from '../windows.ts';

export function bookingsUnit(w: Window, estPages: number, runId: string): Unit {
  return {
    stream: 'bookings',
    ledgerStream: 'bookings',
    scope: '*',
    window: w,
    bucket: 'default',
    estRequests: estPages,
    label: `bookings ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const bookings: Booking[] = await ctx.client.listBookings(w.startMs, w.endMs, {
        meter,
        signal: ctx.signal,
      });
      const seenMs = ctx.now();
      // A status this version does not know is not known to be final: the booking is stored as
      // sent and its window pulled again until it settles (a later status is then seen).
      const open = bookings.filter((b) => !FINAL_BOOKING_STATUSES.has(b.booking_status)).length;
      const unknown = [
        ...new Set(bookings.filter((b) => !b.booking_status_known).map((b) => b.booking_status)),
      ];
      const s = settledStatus(ctx, w);
      const status = open > 0 ? 'incomplete' : s.status;
      const reason =
        open > 0
          ? `${open} booking(s) not yet in a final status` +
            (unknown.length > 0 ? ` (statuses this version does not know: ${unknown.join(', ')})` : '')
          : s.reason;
      return {
        ledger: [
          {
            stream: 'bookings',
            scope: '*',
            startMs: w.startMs,
            endMs: w.endMs,
            status,
            reason,
            rows: bookings.length,
            requests: meter.requests,
          },
        ],
        deletes: [],
        inserts: [],
        rows: bookings.length,
        // Reads the stored statuses before writing, so it runs on its own after the batched writes.
        async custom(con) {
          if (bookings.length === 0) return;
          // Status changes since the last observation, for the history table.
          const ids = bookings.map((b) => b.booking_id);
          const prev = new Map<number, { status: string; first: Date }>();
          const stored = await queryJs(con, 'sync/booking_statuses', [ctx.account, `[${ids.join(',')}]`]);
          for (const r of stored)
            prev.set(Number(r.booking_id), {
              status: String(r.booking_status),
              first: r.first_seen_at as Date,
            });
          const changed = bookings.filter((b) => prev.get(b.booking_id)?.status !== b.booking_status);
          await upsertRows(
            con,
            'carpool_booking_history',
            ['account', 'booking_id', 'seen_at'],
            changed.map((b) => ({
              account: ctx.account,
              booking_id: b.booking_id,
              booking_status: b.booking_status,
              is_approved: b.is_approved,
              seen_at: seenMs,
              run_id: runId,
            })),
          );
          await upsertRows(
            con,
            'carpool_bookings',
            ['account', 'booking_id'],
            bookings.map((b) => ({
              account: ctx.account,
              booking_id: b.booking_id,
              vehicle_id: b.vehicle_id,
              registration: b.registration,
              driver_id: b.driver_id,
              department: b.department,
              booking_status: b.booking_status,
              booking_status_known: b.booking_status_known,
              is_approved: b.is_approved,
              approved_by: b.approved_by,
              declined_by: b.declined_by,
              start_time: b.start_ms,
              end_time: b.end_ms,
              picked_up_at: b.picked_up_ms,
              returned_at: b.returned_ms,
              created_at: b.created_ms,
              updated_at: b.updated_ms,
              first_seen_at: prev.get(b.booking_id)?.first ?? seenMs,
              last_seen_at: seenMs,
              extra_fields: b.extra_fields,
            })),
          );
        },
      };
    },
  };
}

export const bookings = defineStream({
  name: 'bookings',
  ledgerStreams: ['bookings'],
  grid: 'month',
  scope: 'fleet',
  endpoints: ['GET /carpool/bookings'],
  buckets: ['default'],
  tables: ['carpool_bookings', 'carpool_booking_history'],
  startOrder: 2,
  needs: ['carpool'],
  async plan(ctx) {
    // Bookings are scheduled ahead: cover more beyond the range.
    const ahead = { startMs: ctx.range.startMs, endMs: ctx.range.endMs + BOOKINGS_AHEAD_DAYS * DAY_MS };
    return (await ctx.gaps('bookings', ctx.grid('month', ahead), '*', ahead)).map((w) =>
      bookingsUnit(w, ctx.pages(ctx.rates.bookingsPerDay, w), ctx.runId),
    );
  },
});
