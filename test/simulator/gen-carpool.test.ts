import { describe, expect, it } from 'vitest';
import type { BookingStatus } from '../../src/api/types.ts';
import {
  BOOKING_TRANSITIONS,
  carpoolDriverSetupStatus,
  carpoolVehicleSetupStatus,
  generateFleet,
} from '../../src/simulator/generate.ts';
import type { SimBooking } from '../../src/simulator/model.ts';

const f = generateFleet({ endDay: '2026-05-10' });
const MIN = 60_000;
const final = (b: SimBooking) => b.steps.at(-1)!;
const pickedUp = f.bookings.filter((b) => b.steps.some((s) => s.status === 'BOOKING_STATUS_ACTIVE'));
/** Trips of the booking's vehicle that start inside [pickup, the booking's last step or +∞). */
function tripsOfBooking(b: SimBooking) {
  const pickup = b.steps.find((s) => s.status === 'BOOKING_STATUS_ACTIVE')!.at_ms;
  const next = pickedUp.find((x) => x.vehicle_id === b.vehicle_id && x.start_ms > b.start_ms);
  const until = next ? next.start_ms : Infinity;
  return { pickup, trips: f.tripsOf(b.vehicle_id).filter((t) => t.start_ms >= pickup && t.start_ms < until) };
}

describe('carpool bookings', () => {
  it('follow the state table step by step, starting REQUESTED at creation', () => {
    expect(f.bookings.length).toBeGreaterThan(50);
    for (const b of f.bookings) {
      expect(b.steps[0]!.status).toBe('BOOKING_STATUS_REQUESTED');
      expect(b.steps[0]!.at_ms).toBe(b.created_ms);
      expect(b.created_ms).toBeLessThan(b.start_ms);
      for (let i = 1; i < b.steps.length; i++) {
        const [a, c] = [b.steps[i - 1]!, b.steps[i]!];
        expect(c.at_ms).toBeGreaterThan(a.at_ms);
        expect(BOOKING_TRANSITIONS[a.status] ?? [], `${b.booking_id}: ${a.status} → ${c.status}`).toContain(
          c.status,
        );
      }
    }
    const seen = new Set<BookingStatus>(f.bookings.flatMap((b) => b.steps.map((s) => s.status)));
    expect(seen.size).toBe(11); // every status but the reserved BOOKING_STATUS_FREE
  });

  it("picked-up bookings contain the vehicle's trips; lateness agrees with the trips", () => {
    expect(pickedUp.length).toBeGreaterThan(30);
    for (const b of pickedUp) {
      const { pickup, trips } = tripsOfBooking(b);
      const last = final(b);
      expect(trips.length).toBeGreaterThan(0);
      expect(trips[0]!.start_ms).toBe(pickup);
      expect(pickup - b.start_ms).toBeLessThan(30 * MIN);
      for (const t of trips) expect(t.driver_id).toBe(b.driver_id);
      const ignitionOff = trips.at(-1)!.end_ms;
      expect(b.truly_late).toBe(ignitionOff > b.end_ms);
      if (last.status === 'BOOKING_STATUS_RETURNED' || last.status === 'BOOKING_STATUS_RETURNED_LATE') {
        expect(last.status === 'BOOKING_STATUS_RETURNED_LATE').toBe(b.truly_late);
        if (b.trap === undefined) expect(last.returned_ms).toBe(ignitionOff);
        expect(last.picked_up_ms).toBe(pickup);
      }
      if (last.status === 'BOOKING_STATUS_FORCE_TERMINATED') expect(last.returned_ms).toBeNull();
    }
  });

  it('carpool vehicles drive only inside picked-up bookings', () => {
    for (const cv of f.carpoolVehicles) {
      const windows = pickedUp
        .filter((b) => b.vehicle_id === cv.vehicle_id)
        .map((b) => {
          const { pickup, trips } = tripsOfBooking(b);
          return [pickup, trips.at(-1)!.end_ms] as const;
        });
      for (const t of f.tripsOf(cv.vehicle_id))
        expect(windows.some(([a, z]) => t.start_ms >= a && t.end_ms <= z)).toBe(true);
      if (carpoolVehicleSetupStatus(cv) === 'SETUP_INCOMPLETE')
        expect(f.tripsOf(cv.vehicle_id)).toHaveLength(0);
    }
  });

  it('carries each spec trap, marked', () => {
    const trap = (name: SimBooking['trap']) => f.bookings.filter((b) => b.trap === name);
    const [after] = trap('returned_at_after_end');
    expect(final(after!).status).toBe('BOOKING_STATUS_RETURNED');
    expect(final(after!).returned_ms!).toBeGreaterThan(after!.end_ms);
    expect(tripsOfBooking(after!).trips.at(-1)!.end_ms).toBeLessThanOrEqual(after!.end_ms);
    expect(after!.truly_late).toBe(false);

    const [before] = trap('returned_late_before_end');
    expect(final(before!).status).toBe('BOOKING_STATUS_RETURNED_LATE');
    expect(final(before!).returned_ms!).toBeLessThan(before!.end_ms);
    expect(before!.truly_late).toBe(true);

    const [auto] = trap('auto_approved');
    const approved = auto!.steps.find((s) => s.status === 'BOOKING_STATUS_APPROVED')!;
    expect(approved.is_approved).toBe(true);
    expect(approved.approved_by).toBeNull();

    const [declined] = trap('declined_by_one_department');
    expect(final(declined!).status).toBe('BOOKING_STATUS_DECLINED');
    expect(final(declined!).declined_by).toEqual(expect.any(String));
    expect(final(declined!).approved_by).toBeNull();
    expect(final(declined!).is_approved).toBe(false);
  });

  it('cancels a booking not picked up 30 minutes after its start', () => {
    const graced = f.bookings.filter((b) => {
      const [a, c] = b.steps.slice(-2);
      return (
        a?.status === 'BOOKING_STATUS_APPROVED' &&
        c?.status === 'BOOKING_STATUS_CANCELLED' &&
        c.at_ms === b.start_ms + 30 * MIN
      );
    });
    expect(graced.length).toBeGreaterThan(0);
  });

  it('has bookings waiting, running and late at the end of history, which change as the clock advances', () => {
    const at = (now: number) => f.truth.bookings(f.endMs - 86_400_000, f.endMs + 5 * 86_400_000, now);
    const statusAt = (now: number) => new Map(at(now).map((v) => [v.booking.booking_id, v.status]));
    const atEnd = statusAt(f.endMs);
    const later = statusAt(f.endMs + 4 * 86_400_000);
    for (const s of ['REQUESTED', 'APPROVED', 'ACTIVE', 'ACTIVE_LATE'] as const) {
      const ids = [...atEnd].filter(([, x]) => x === `BOOKING_STATUS_${s}`).map(([id]) => id);
      expect(ids.length, s).toBeGreaterThan(0);
      for (const id of ids) expect(later.get(id)).not.toBe(atEnd.get(id));
    }
    expect(f.bookings.some((b) => b.start_ms > f.endMs)).toBe(true);
  });

  it('bookingAt shows the last step at or before now; truth.bookings skips bookings not created yet', () => {
    const b = pickedUp[3]!;
    const mid = b.steps[1]!;
    const v = f.bookingAt(b, mid.at_ms);
    expect(v.status).toBe(mid.status);
    expect(v.updated_ms).toBe(mid.at_ms);
    expect(f.bookingAt(b, mid.at_ms - 1).status).toBe(b.steps[0]!.status);
    expect(f.truth.bookings(b.start_ms, b.end_ms, b.created_ms - 1).some((x) => x.booking === b)).toBe(false);
    expect(f.truth.bookings(b.start_ms, b.end_ms, b.created_ms).some((x) => x.booking === b)).toBe(true);
    expect(f.truth.bookings(b.end_ms, b.end_ms + 1, f.endMs).some((x) => x.booking === b)).toBe(false);
  });
});

describe('carpool configuration', () => {
  it('vehicles: READY needs all four of category, department, default location and licence class', () => {
    const status = f.carpoolVehicles.map(carpoolVehicleSetupStatus);
    expect(status).toContain('READY');
    expect(status.filter((s) => s === 'SETUP_INCOMPLETE').length).toBeGreaterThanOrEqual(2);
    const ready = f.carpoolVehicles.find((v) => carpoolVehicleSetupStatus(v) === 'READY')!;
    for (const k of ['category', 'department', 'default_location', 'license_class'] as const)
      expect(carpoolVehicleSetupStatus({ ...ready, [k]: null })).toBe('SETUP_INCOMPLETE');
  });

  it('drivers cover every setup case; a flag counts only while its account setting is on', () => {
    const s = f.carpoolSettings;
    expect(Object.values(s).filter((x) => !x)).toHaveLength(1);
    const listed = f.drivers.filter((d) => !d.deactivated);
    expect(f.drivers.some((d) => d.deactivated)).toBe(true);
    expect(listed.some((d) => carpoolDriverSetupStatus(d, s) === 'ACTIVE_CARPOOL')).toBe(true);
    const bothOff = listed.find(
      (d) => d.can_book_carpool && !d.allow_system_auto_booking && !d.allow_specific_vehicle_booking,
    );
    expect(carpoolDriverSetupStatus(bothOff!, s)).toBe('SETUP_INCOMPLETE');
    const gated = listed.find(
      (d) =>
        carpoolDriverSetupStatus(d) === 'ACTIVE_CARPOOL' &&
        carpoolDriverSetupStatus(d, s) === 'SETUP_INCOMPLETE',
    );
    expect(gated).toBeDefined();
    expect(carpoolDriverSetupStatus(gated!, { ...s, drivers_can_book_specific_vehicles: true })).toBe(
      'ACTIVE_CARPOOL',
    );
    expect(listed.some((d) => d.department === null)).toBe(true);
    const ok = listed.find((d) => carpoolDriverSetupStatus(d, s) === 'ACTIVE_CARPOOL')!;
    expect(carpoolDriverSetupStatus({ ...ok, department: null }, s)).toBe('SETUP_INCOMPLETE');
    expect(carpoolDriverSetupStatus({ ...ok, license_type_ids: [] }, s)).toBe('SETUP_INCOMPLETE');
    for (const d of f.drivers)
      expect(d.driver_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(f.bookingRules.length).toBeGreaterThanOrEqual(3);
  });

  it('bookings reference known drivers and carpool vehicles; booking ids are unique', () => {
    const drivers = new Set(f.drivers.map((d) => d.driver_id));
    const vehicles = new Set(f.carpoolVehicles.map((v) => v.vehicle_id));
    for (const b of f.bookings) {
      expect(drivers.has(b.driver_id)).toBe(true);
      expect(vehicles.has(b.vehicle_id)).toBe(true);
    }
    expect(new Set(f.bookings.map((b) => b.booking_id)).size).toBe(f.bookings.length);
  });
});
