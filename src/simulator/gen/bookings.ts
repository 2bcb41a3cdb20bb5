/**
 * Carpool bookings of one bookable carpool vehicle and the trips they imply. The vehicle drives
 * only inside its bookings: a picked-up booking's trips run from the pickup (ignition on) to the
 * return (ignition off), so booking status, lateness and mileage agree. Each booking's life is a
 * list of steps that follows the spec's state table (see BOOKING_TRANSITIONS in carpool.ts).
 */
import type { BookingStatus } from '../../api/types.ts';
import type { BookingStep, SimBooking, SimDriver, SimVehicle } from '../model.ts';
import type { Calendar } from './calendar.ts';
import { BOOKING_DRIVER_INDICES } from './carpool.ts';
import { DESTINATIONS, homeDepotOf } from './places.ts';
import { type Rng, rngFor } from './prng.ts';
import type { RawTrip } from './trips.ts';
import { DAY, HOUR, MINUTE, type VehicleRole } from './vehicles.ts';

type Fate =
  | 'on_time'
  | 'late'
  | 'force_terminated'
  | 'declined'
  | 'requested_cancel'
  | 'expire_cancel'
  | 'expire_approve'
  | 'expire_decline'
  | 'no_pickup'
  | 'approved_cancel';

const MANAGERS: Record<string, string> = {
  Sales: 'Priya Raman',
  'Field Service': 'Tom Becker',
  Logistics: 'Maria Costa',
  Executive: 'Oliver Grant',
};
const managerOf = (dept: string | null) => (dept && MANAGERS[dept]) || 'Fleet Admin';

/** Forced fates/traps of the special carpool vehicles (slot 0–3) by booking ordinal. */
const FORCED: Record<number, Record<number, { fate: Fate; trap?: SimBooking['trap'] }>> = {
  0: {
    2: { fate: 'on_time', trap: 'returned_at_after_end' },
    3: { fate: 'force_terminated' },
    4: { fate: 'expire_cancel' },
  },
  1: { 2: { fate: 'late', trap: 'returned_late_before_end' }, 3: { fate: 'late' }, 4: { fate: 'no_pickup' } },
  2: {
    2: { fate: 'on_time', trap: 'auto_approved' },
    3: { fate: 'expire_approve' },
    4: { fate: 'expire_decline' },
  },
  3: {
    2: { fate: 'declined', trap: 'declined_by_one_department' },
    3: { fate: 'requested_cancel' },
    4: { fate: 'approved_cancel' },
  },
};

function randomFate(r: Rng): Fate {
  const u = r.next();
  if (u < 0.06) return 'declined';
  if (u < 0.1) return 'requested_cancel';
  if (u < 0.13) return 'expire_cancel';
  if (u < 0.17) return 'expire_approve';
  if (u < 0.19) return 'expire_decline';
  if (u < 0.23) return 'no_pickup';
  if (u < 0.26) return 'approved_cancel';
  if (u < 0.29) return 'force_terminated';
  if (u < 0.45) return 'late';
  return 'on_time';
}

interface Plan {
  start: number;
  end: number;
  created: number;
  driver: SimDriver;
  fate: Fate;
  trap?: SimBooking['trap'];
  /** Approval decision instant for fates decided by a manager before the start. */
  decideAt?: number;
  returnAt?: number;
}

const sec = (ms: number) => Math.floor(ms / 1000) * 1000;

/** Trips from `a` (pickup) to `b` (ignition off at return), with parked gaps between them. */
function splitTrips(r: Rng, a: number, b: number, driver: string, depot: string): RawTrip[] {
  const span = b - a;
  const n = Math.max(1, Math.min(6, Math.round(span / (100 * MINUTE))));
  const drive = n === 1 ? span : span * r.real(0.35, 0.6);
  const tw = Array.from({ length: n }, () => r.real(1, 3));
  const gw = Array.from({ length: n - 1 }, () => r.real(1, 3));
  const ts = tw.reduce((x, y) => x + y, 0);
  const gs = gw.reduce((x, y) => x + y, 0) || 1;
  const out: RawTrip[] = [];
  let t = a;
  let at = depot;
  for (let i = 0; i < n; i++) {
    const end = i === n - 1 ? b : sec(t + (drive * tw[i]!) / ts);
    const to = i === n - 1 ? depot : r.pick(DESTINATIONS);
    const kmh = r.real(20, 90);
    out.push({
      start: t,
      end,
      dist: Math.max(1, Math.round((kmh * 1000 * (end - t)) / HOUR)),
      driver,
      from: at,
      to,
    });
    at = to;
    if (i < n - 1) t = sec(end + ((span - drive) * gw[i]!) / gs);
  }
  return out;
}

class StepLog {
  readonly steps: BookingStep[] = [];
  private cur: Omit<BookingStep, 'at_ms' | 'status'> = {
    is_approved: false,
    approved_by: null,
    declined_by: null,
    picked_up_ms: null,
    returned_ms: null,
  };

  add(
    at_ms: number,
    status: BookingStatus,
    change: Partial<Omit<BookingStep, 'at_ms' | 'status'>> = {},
  ): void {
    this.cur = { ...this.cur, ...change };
    this.steps.push({ at_ms, status, ...this.cur });
  }
}

function plans(seed: number, role: VehicleRole, cal: Calendar, drivers: readonly SimDriver[]): Plan[] {
  const r = rngFor(seed, 'bookings', role.index);
  const out: Plan[] = [];
  const pickDriver = (dayIndex: number) => {
    const idx = r.pick(BOOKING_DRIVER_INDICES);
    return drivers[idx === 11 && dayIndex > cal.days.length / 2 ? 0 : idx]!;
  };
  const forced = FORCED[role.carpoolSlot] ?? {};
  for (let d = r.int(0, 2); d <= cal.days.length - 3; d += r.int(1, 3)) {
    const day = cal.days[d]!;
    if ((day.weekday === 0 || day.weekday === 6) && r.chance(0.8)) continue;
    const start = day.startMs + r.int(28, 40) * 15 * MINUTE;
    const end = start + r.int(4, 19) * 30 * MINUTE;
    const created = sec(start - r.int(3 * 60, 6 * 24 * 60) * MINUTE - r.int(0, 59) * 1000);
    const f = forced[out.length];
    out.push({
      start,
      end,
      created,
      driver: pickDriver(d),
      fate: f?.fate ?? randomFate(r),
      ...(f?.trap ? { trap: f.trap } : {}),
    });
  }
  const E = cal.endMs;
  if (cal.days.length >= 3) {
    const d0 = drivers[role.carpoolSlot % 7]!;
    if (role.carpoolSlot === 0)
      out.push({
        start: E - 3 * HOUR,
        end: E + 5 * HOUR,
        created: E - 2 * DAY,
        driver: d0,
        fate: 'on_time',
        returnAt: E + 3 * HOUR,
      });
    if (role.carpoolSlot === 1)
      out.push({
        start: E - 7 * HOUR,
        end: E - HOUR,
        created: E - 2 * DAY,
        driver: d0,
        fate: 'late',
        returnAt: E + 2 * HOUR,
      });
    if (role.carpoolSlot === 2)
      out.push({
        start: E + DAY + 9 * HOUR,
        end: E + DAY + 13 * HOUR,
        created: E - 5 * HOUR,
        driver: d0,
        fate: 'expire_cancel',
      });
    if (role.carpoolSlot === 3)
      out.push({
        start: E + 2 * DAY + 8 * HOUR,
        end: E + 2 * DAY + 14 * HOUR,
        created: E - 30 * HOUR,
        decideAt: E - 20 * HOUR,
        driver: d0,
        fate: 'on_time',
      });
  }
  return out;
}

export interface CarpoolHistory {
  bookings: SimBooking[];
  trips: RawTrip[];
}

export function carpoolHistory(
  seed: number,
  role: VehicleRole,
  v: SimVehicle,
  cal: Calendar,
  drivers: readonly SimDriver[],
): CarpoolHistory {
  const r = rngFor(seed, 'booking-life', role.index);
  const depot = homeDepotOf(role.index);
  const bookings: SimBooking[] = [];
  const trips: RawTrip[] = [];
  plans(seed, role, cal, drivers).forEach((p, k) => {
    const log = new StepLog();
    const mgr = managerOf(p.driver.department);
    log.add(p.created, 'BOOKING_STATUS_REQUESTED');
    const decideAt = p.decideAt ?? sec(p.created + (p.start - HOUR - p.created) * r.real(0.05, 0.9));
    const expiring = p.fate.startsWith('expire_');
    const auto = p.trap === 'auto_approved' || (p.trap === undefined && !expiring && r.chance(0.15));
    const approve = () => {
      if (expiring) {
        log.add(p.start - HOUR, 'BOOKING_STATUS_EXPIRING_APPROVAL');
        log.add(sec(p.start - r.int(5, 50) * MINUTE), 'BOOKING_STATUS_APPROVED', {
          is_approved: true,
          approved_by: mgr,
        });
      } else if (auto) log.add(p.created + MINUTE, 'BOOKING_STATUS_APPROVED', { is_approved: true });
      else log.add(decideAt, 'BOOKING_STATUS_APPROVED', { is_approved: true, approved_by: mgr });
    };
    let truly_late = false;
    switch (p.fate) {
      case 'declined':
        log.add(decideAt, 'BOOKING_STATUS_DECLINED', { declined_by: managerOf(v.department) });
        break;
      case 'requested_cancel':
        log.add(decideAt, 'BOOKING_STATUS_CANCELLED');
        break;
      case 'expire_cancel':
        log.add(p.start - HOUR, 'BOOKING_STATUS_EXPIRING_APPROVAL');
        log.add(p.start, 'BOOKING_STATUS_CANCELLED');
        break;
      case 'expire_decline':
        log.add(p.start - HOUR, 'BOOKING_STATUS_EXPIRING_APPROVAL');
        log.add(sec(p.start - r.int(5, 50) * MINUTE), 'BOOKING_STATUS_DECLINED', { declined_by: mgr });
        break;
      case 'no_pickup':
        approve();
        log.add(p.start + 30 * MINUTE, 'BOOKING_STATUS_CANCELLED');
        break;
      case 'approved_cancel':
        approve();
        log.add(sec(decideAt + (p.start - decideAt) * r.real(0.2, 0.9)), 'BOOKING_STATUS_CANCELLED');
        break;
      default: {
        approve();
        const pickup = p.start + r.int(0, 20) * MINUTE + r.int(0, 59) * 1000;
        log.add(pickup, 'BOOKING_STATUS_ACTIVE', { picked_up_ms: pickup });
        const driver = p.driver.driver_id;
        if (p.fate === 'force_terminated') {
          const lastEnd = sec(pickup + (p.end - pickup) * r.real(0.2, 0.4));
          trips.push(...splitTrips(r, pickup, lastEnd, driver, depot));
          log.add(lastEnd + r.int(10, 20) * MINUTE, 'BOOKING_STATUS_FORCE_TERMINATED');
        } else if (p.fate === 'late') {
          truly_late = true;
          const trap = p.trap === 'returned_late_before_end';
          const ret =
            p.returnAt ?? p.end + (trap ? r.int(10, 25) : r.int(10, 150)) * MINUTE + r.int(0, 59) * 1000;
          trips.push(...splitTrips(r, pickup, ret, driver, depot));
          // The late booking at the end of history always passes through ACTIVE_ALMOST_LATE, so a
          // harness clock finds that status (the draw is made either way: the rest stays as it was).
          if (r.chance(0.7) || p.returnAt !== undefined)
            log.add(p.end - 15 * MINUTE, 'BOOKING_STATUS_ACTIVE_ALMOST_LATE');
          log.add(p.end + MINUTE, 'BOOKING_STATUS_ACTIVE_LATE');
          const returned = trap ? p.end - r.int(2, 6) * MINUTE : ret;
          log.add(ret, 'BOOKING_STATUS_RETURNED_LATE', { returned_ms: returned });
        } else {
          const trap = p.trap === 'returned_at_after_end';
          const ret =
            p.returnAt ??
            (trap
              ? p.end - r.int(2, 8) * MINUTE
              : sec(pickup + (p.end - 2 * MINUTE - pickup) * r.real(0.5, 1)));
          trips.push(...splitTrips(r, pickup, ret, driver, depot));
          const returned = trap ? p.end + r.int(2, 5) * MINUTE : ret;
          log.add(returned, 'BOOKING_STATUS_RETURNED', { returned_ms: returned });
        }
      }
    }
    bookings.push({
      booking_id: (role.index + 1) * 10_000 + k + 1,
      vehicle_id: v.vehicle_id,
      registration: v.registration,
      driver_id: p.driver.driver_id,
      department: p.driver.department,
      start_ms: p.start,
      end_ms: p.end,
      created_ms: p.created,
      steps: log.steps,
      truly_late,
      ...(p.trap ? { trap: p.trap } : {}),
    });
  });
  return { bookings, trips };
}
