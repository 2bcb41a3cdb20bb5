/**
 * Booking status history across runs: syncs at five clocks around the end of history see the
 * special carpool bookings pass through every non-final status (REQUESTED, APPROVED, ACTIVE,
 * ACTIVE_ALMOST_LATE, ACTIVE_LATE, EXPIRING_APPROVAL) into their final ones. Each run stores the
 * status the simulator's truth has at its clock; the history keeps every status observed, once,
 * with when it was seen; lateness is ACTIVE_LATE / RETURNED_LATE only — ACTIVE_ALMOST_LATE is not
 * late (a rule like LIKE '%_LATE' fails here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimBooking } from '../../src/simulator/model.ts';
import type { BookingStatus } from '../../src/api/types.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const HOUR = 3_600_000;
/** Sync clocks relative to the end of history (E). */
const CLOCKS_H = [-2.5, -1.1, -0.5, 32.5, 34];
const STREAMS = ['carpool', 'bookings'];

let h: Harness;
const seen: { clock: number; stored: Map<number, { status: string; late: boolean }> }[] = [];
let history: { booking_id: number; booking_status: string; seen_ms: number }[] = [];
let special: SimBooking[];

beforeAll(async () => {
  h = await startHarness({ nowOffsetMs: CLOCKS_H[0]! * HOUR });
  const E = h.fleet.endMs;
  special = h.fleet.bookings.filter((b) => b.end_ms > E - 10 * HOUR);
  for (const c of CLOCKS_H) {
    h.advance(E + c * HOUR - h.now());
    const clock = h.now();
    const s = await h.sync({ streams: STREAMS, toDay: h.lastDay });
    expect(s.outcome).toBe('ok');
    const rows = await h.report('carpool', { from: h.firstDay, to: '2026-04-25' });
    seen.push({
      clock,
      stored: new Map(
        rows.map((r) => [
          Number(r.booking_id),
          { status: String(r.booking_status), late: r.is_late === true },
        ]),
      ),
    });
  }
  const con = await h.db.connect();
  history = (
    await con.runAndReadAll(
      'SELECT booking_id, booking_status, epoch_ms(seen_at) AS seen_ms FROM carpool_booking_history WHERE account = $1 ORDER BY booking_id, seen_at',
      [ACCOUNT],
    )
  )
    .getRowObjectsJS()
    .map((r) => ({
      booking_id: Number(r.booking_id),
      booking_status: String(r.booking_status),
      seen_ms: Number(r.seen_ms),
    }));
  con.closeSync();
}, 180_000);
afterAll(() => h?.close());

const truthAt = (b: SimBooking, ms: number): BookingStatus => h.fleet.bookingAt(b, ms).status;

describe('booking status history across runs', () => {
  it('meets every non-final status at the harness clocks', () => {
    const met = new Set(seen.flatMap((s) => special.map((b) => s.stored.get(b.booking_id)?.status)));
    for (const st of [
      'BOOKING_STATUS_REQUESTED',
      'BOOKING_STATUS_APPROVED',
      'BOOKING_STATUS_ACTIVE',
      'BOOKING_STATUS_ACTIVE_ALMOST_LATE',
      'BOOKING_STATUS_ACTIVE_LATE',
      'BOOKING_STATUS_EXPIRING_APPROVAL',
    ])
      expect(met, st).toContain(st);
  });

  it('stores, at each run, the status the truth has at its clock', () => {
    for (const s of seen)
      for (const b of special.filter((x) => x.created_ms <= s.clock))
        expect(s.stored.get(b.booking_id)?.status, `${b.booking_id} at ${s.clock}`).toBe(truthAt(b, s.clock));
  });

  it('keeps every observed status once, with the run that saw it', () => {
    let total = 0;
    for (const b of special) {
      // Worked from the truth: the statuses at the clocks, a repeat folded (it is no change).
      const want: { status: string; clock: number }[] = [];
      for (const s of seen) {
        if (b.created_ms > s.clock) continue;
        const st = truthAt(b, s.clock);
        if (want.at(-1)?.status !== st) want.push({ status: st, clock: s.clock });
      }
      total += want.length;
      const got = history.filter((r) => r.booking_id === b.booking_id);
      expect(
        got.map((r) => r.booking_status),
        String(b.booking_id),
      ).toEqual(want.map((w) => w.status));
      // Seen by the run at that clock: after it started, before the next one.
      got.forEach((r, i) => {
        const next = seen.find((s) => s.clock > want[i]!.clock)?.clock ?? Infinity;
        expect(r.seen_ms).toBeGreaterThanOrEqual(want[i]!.clock);
        expect(r.seen_ms).toBeLessThan(next);
      });
    }
    expect(history.filter((r) => special.some((b) => b.booking_id === r.booking_id)).length).toBe(total);
    expect(total).toBeGreaterThanOrEqual(10);
  });

  it('counts ACTIVE_LATE as late and ACTIVE_ALMOST_LATE as not late', () => {
    let almost = 0;
    let late = 0;
    for (const s of seen)
      for (const [, v] of s.stored) {
        if (v.status === 'BOOKING_STATUS_ACTIVE_ALMOST_LATE') {
          expect(v.late).toBe(false);
          almost++;
        }
        if (v.status === 'BOOKING_STATUS_ACTIVE_LATE') {
          expect(v.late).toBe(true);
          late++;
        }
        if (v.status === 'BOOKING_STATUS_ACTIVE') expect(v.late).toBe(false);
      }
    expect(almost).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(0);
  });
});
