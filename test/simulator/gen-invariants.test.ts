import { describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { SimTrip } from '../../src/simulator/model.ts';
import { localDate, localDayBounds, localMonth } from '../../src/time.ts';

const f = generateFleet({ endDay: '2026-05-10' });
const zone = f.timezone;
const DAY = 86_400_000;
const ids = f.vehicles.map((v) => v.vehicle_id);
const eventsOf = (id: number) => f.odometerEvents.filter((e) => e.vehicle_id === id);

describe('trips', () => {
  it('are ordered, non-overlapping, whole seconds, at 20–90 km/h, inside history unless a booking runs past it', () => {
    for (const id of ids) {
      const trips = f.tripsOf(id);
      trips.forEach((t, i) => {
        expect(t.start_ms % 1000).toBe(0);
        expect(t.end_ms % 1000).toBe(0);
        expect(t.end_ms).toBeGreaterThan(t.start_ms);
        const kmh = t.distance_m / 1000 / ((t.end_ms - t.start_ms) / 3_600_000);
        expect(kmh).toBeGreaterThanOrEqual(19.9);
        expect(kmh).toBeLessThanOrEqual(90.1);
        expect(t.start_ms).toBeGreaterThanOrEqual(f.startMs);
        const prev = trips[i - 1];
        if (prev) expect(t.start_ms).toBeGreaterThan(prev.end_ms);
      });
      const carpool = f.carpoolVehicles.some((c) => c.vehicle_id === id);
      if (!carpool) expect(trips.every((t) => t.end_ms <= f.endMs)).toBe(true);
    }
  });

  it('are weekday-heavy', () => {
    let weekday = 0;
    let weekend = 0;
    for (const id of ids)
      for (const t of f.tripsOf(id)) {
        const wd = new Date(`${localDate(t.start_ms, zone)}T00:00:00Z`).getUTCDay();
        if (wd === 0 || wd === 6) weekend++;
        else weekday++;
      }
    expect(weekday / 5).toBeGreaterThan((3 * weekend) / 2);
  });

  it('include trips across local midnight and across a local month end', () => {
    const all = ids.flatMap((id) => [...f.tripsOf(id)]);
    expect(all.some((t) => localDate(t.start_ms, zone) !== localDate(t.end_ms - 1, zone))).toBe(true);
    expect(all.some((t) => localMonth(t.start_ms, zone) !== localMonth(t.end_ms - 1, zone))).toBe(true);
  });
});

describe('odometer', () => {
  it('is continuous between trips except across an odometer event, and odometerAt agrees', () => {
    for (const id of ids) {
      const trips = f.tripsOf(id);
      for (let i = 1; i < trips.length; i++) {
        const a = trips[i - 1]!;
        const b = trips[i]!;
        expect(b.end_odometer_m - b.start_odometer_m).toBe(b.distance_m);
        const between = eventsOf(id).filter((e) => e.at_ms > a.end_ms && e.at_ms < b.start_ms);
        if (between.length === 0) expect(b.start_odometer_m).toBe(a.end_odometer_m);
        else {
          expect(between[0]!.reading_before_m).toBe(a.end_odometer_m);
          expect(b.start_odometer_m).toBe(between.at(-1)!.reading_after_m);
        }
      }
      for (const t of trips.filter((_, i) => i % 50 === 0)) {
        expect(f.odometerAt(id, t.start_ms)).toBe(t.start_odometer_m);
        expect(f.odometerAt(id, t.end_ms)).toBe(t.end_odometer_m);
        const mid = t.start_ms + Math.floor((t.end_ms - t.start_ms) / 4);
        const want = t.start_odometer_m + (t.distance_m * (mid - t.start_ms)) / (t.end_ms - t.start_ms);
        expect(Math.abs(f.odometerAt(id, mid) - want)).toBeLessThanOrEqual(0.5);
      }
    }
  });

  it('has one reset to near 0 and one tracker change, while parked, away from the first and last week', () => {
    const reset = f.odometerEvents.filter((e) => e.kind === 'odometer_reset');
    const swap = f.odometerEvents.filter((e) => e.kind === 'terminal_has_changed');
    expect(reset.length).toBeGreaterThanOrEqual(1);
    expect(swap.length).toBeGreaterThanOrEqual(1);
    for (const e of f.odometerEvents) {
      expect(e.at_ms - f.startMs).toBeGreaterThan(7 * DAY);
      expect(f.endMs - e.at_ms).toBeGreaterThan(7 * DAY);
      expect(f.tripsOf(e.vehicle_id).some((t) => t.start_ms <= e.at_ms && e.at_ms <= t.end_ms)).toBe(false);
      expect(f.odometerAt(e.vehicle_id, e.at_ms - 1000)).toBe(e.reading_before_m);
      expect(f.odometerAt(e.vehicle_id, e.at_ms)).toBe(e.reading_after_m);
    }
    expect(reset[0]!.reading_after_m).toBeLessThan(1000);
    expect(reset[0]!.reading_before_m).toBeGreaterThan(10_000_000);
    const v = f.vehicles.find((x) => x.vehicle_id === swap[0]!.vehicle_id)!;
    expect(v.terminals).toHaveLength(2);
    expect(v.terminals[1]!.from_ms).toBe(swap[0]!.at_ms);
    expect(v.terminals[1]!.serial).not.toBe(v.terminals[0]!.serial);
    expect(swap[0]!.reading_after_m).not.toBe(swap[0]!.reading_before_m);
  });
});

/** Instants worth sampling: every trip start/end and ±1 s around each fill and counter reset. */
function samples(id: number): number[] {
  const s = new Set<number>([f.startMs, f.endMs]);
  for (const t of f.tripsOf(id)) {
    s.add(t.start_ms);
    s.add(t.end_ms);
    s.add(Math.floor((t.start_ms + t.end_ms) / 2));
  }
  for (const x of [...f.fillsOf(id).map((x) => x.at_ms), ...f.fuelCounterResets.map((r) => r.at_ms)]) {
    s.add(x - 1000);
    s.add(x);
  }
  return [...s].sort((a, b) => a - b);
}

describe('fuel', () => {
  it('CAN counters never go down except at their reset, where they restart at 0', () => {
    const cans = f.vehicles.filter((v) => v.powertrain === 'can');
    expect(f.fuelCounterResets.length).toBeGreaterThanOrEqual(1);
    for (const v of cans) {
      const resets = f.fuelCounterResets.filter((r) => r.vehicle_id === v.vehicle_id).map((r) => r.at_ms);
      let prev = -Infinity;
      for (const ms of samples(v.vehicle_id)) {
        const c = f.fuelCounterAt(v.vehicle_id, ms)!;
        if (resets.includes(ms)) {
          expect(c).toBe(0);
          expect(prev).toBeGreaterThan(1000);
        } else expect(c).toBeGreaterThanOrEqual(prev);
        prev = c;
      }
    }
  });

  it('tank levels stay in [0, tank] and rise only at fills; fills top up a low tank', () => {
    const levelled = f.vehicles.filter((v) => v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level);
    expect(levelled.some((v) => v.powertrain === 'analog')).toBe(true);
    for (const v of levelled) {
      const fills = f.fillsOf(v.vehicle_id);
      if (f.tripsOf(v.vehicle_id).length > 100) expect(fills.length).toBeGreaterThan(0);
      let prevMs = -Infinity;
      let prev = Infinity;
      for (const ms of samples(v.vehicle_id)) {
        const level = f.fuelLevelAt(v.vehicle_id, ms)!;
        expect(level).toBeGreaterThanOrEqual(0);
        expect(level).toBeLessThanOrEqual(v.tank_l);
        const filled = fills
          .filter((x) => x.at_ms > prevMs && x.at_ms <= ms)
          .reduce((a, x) => a + x.litres, 0);
        expect(level).toBeLessThanOrEqual(prev + filled + 1e-9);
        prevMs = ms;
        prev = level;
      }
      for (const x of fills) {
        expect(f.fuelLevelAt(v.vehicle_id, x.at_ms - 1000)! / v.tank_l).toBeLessThan(0.6);
        expect(f.fuelLevelAt(v.vehicle_id, x.at_ms)! / v.tank_l).toBeGreaterThan(0.9);
        expect(x.odometer_m).toBe(f.odometerAt(v.vehicle_id, x.at_ms));
      }
    }
    expect(levelled.flatMap((v) => f.fillsOf(v.vehicle_id)).some((x) => x.listed_twice === true)).toBe(true);
  });

  it('electric vehicles have no fuel data; truth fuel follows distance × consumption', () => {
    const ev = f.vehicles.find((v) => v.powertrain === 'electric')!;
    expect(ev.sensors.electric_battery && ev.sensors.electric_charging).toBe(true);
    expect(f.fuelCounterAt(ev.vehicle_id, f.endMs)).toBeNull();
    expect(f.fuelLevelAt(ev.vehicle_id, f.endMs)).toBeNull();
    expect(f.truth.fuelUsedL(ev.vehicle_id, f.startMs, f.endMs)).toBe(0);
    const can = f.vehicles.find(
      (v) => v.powertrain === 'can' && !f.fuelCounterResets.some((r) => r.vehicle_id === v.vehicle_id),
    )!;
    const [a, b] = [f.startMs + 10 * DAY + 12_345_000, f.startMs + 40 * DAY];
    const used = f.truth.fuelUsedL(can.vehicle_id, a, b);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeCloseTo(f.fuelCounterAt(can.vehicle_id, b)! - f.fuelCounterAt(can.vehicle_id, a)!, 6);
    expect(used).toBeCloseTo(
      (f.truth.distanceM(can.vehicle_id, a, b) * can.consumption_l_per_100km) / 100_000,
      9,
    );
  });
});

describe('geofence visits', () => {
  const toll = new Set(f.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));
  /** The trip of `trips` that `at` lies strictly inside, if any. */
  const tripAt = (trips: readonly SimTrip[], at: number) =>
    trips.find((t) => t.start_ms < at && at < t.end_ms);

  it('toll passes lie strictly inside a trip of their vehicle and last 5–90 s', () => {
    expect(toll.size).toBeGreaterThan(0);
    for (const id of ids) {
      const trips = f.tripsOf(id);
      let prevEnter = -Infinity;
      for (const v of f.visitsOf(id)) {
        expect(v.enter_ms).toBeGreaterThanOrEqual(prevEnter);
        prevEnter = v.enter_ms;
        expect(v.exit_ms).toBeGreaterThan(v.enter_ms);
        if (!toll.has(v.geofence_id)) continue;
        const t = tripAt(trips, v.enter_ms);
        expect(t).toBeDefined();
        expect(v.exit_ms).toBeLessThan(t!.end_ms);
        expect(v.exit_ms - v.enter_ms).toBeLessThanOrEqual(90_000);
      }
    }
    const months = new Set(f.truth.tollVisits(f.startMs, f.endMs).map((v) => localMonth(v.enter_ms, zone)));
    expect(months.size).toBeGreaterThanOrEqual(4);
    expect(f.truth.tollVisits(f.startMs, f.endMs).length).toBeGreaterThan(500);
  });

  it('a stay at a depot or site runs from inside the trip arriving there to inside the trip leaving it', () => {
    expect(f.geofences.some((g) => !g.is_toll)).toBe(true);
    let stays = 0;
    let overnight = 0;
    for (const id of ids) {
      const trips = f.tripsOf(id);
      const sites = f.visitsOf(id).filter((v) => !toll.has(v.geofence_id));
      sites.forEach((v, i) => {
        const a = tripAt(trips, v.enter_ms);
        const b = tripAt(trips, v.exit_ms);
        expect(a && b).toBeTruthy();
        // one vehicle is on one site at a time
        if (i > 0) expect(v.enter_ms).toBeGreaterThanOrEqual(sites[i - 1]!.exit_ms);
        if (a !== b) {
          stays++;
          const name = f.geofences.find((g) => g.geofence_id === v.geofence_id)!.name;
          expect(a!.end_location).toBe(name);
          expect(b!.start_location).toBe(name);
          if (localDate(v.enter_ms, zone) !== localDate(v.exit_ms, zone)) overnight++;
        }
      });
    }
    expect(stays).toBeGreaterThan(500);
    expect(overnight).toBeGreaterThan(100);
  });
});

describe('special vehicles', () => {
  it('one vehicle stays parked for at least 21 days inside history: a measured zero', () => {
    const parked = ids.flatMap((id) => {
      const trips = f.tripsOf(id);
      return trips.slice(1).flatMap((t, i) => {
        const gap = { id, from: trips[i]!.end_ms, to: t.start_ms };
        return gap.to - gap.from >= 21 * DAY ? [gap] : [];
      });
    });
    const gap = parked.find((g) => f.carpoolVehicles.every((c) => c.vehicle_id !== g.id));
    expect(gap).toBeDefined();
    expect(f.truth.distanceM(gap!.id, gap!.from, gap!.to)).toBe(0);
    expect(f.odometerAt(gap!.id, gap!.to)).toBe(f.odometerAt(gap!.id, gap!.from));
  });

  it('plates with spaces and lower case, a late-reporting vehicle, departments and makes', () => {
    expect(
      f.vehicles.some((v) => v.registration.includes(' ') && v.registration !== v.registration.toUpperCase()),
    ).toBe(true);
    expect(new Set(f.vehicles.map((v) => v.registration)).size).toBe(f.vehicles.length);
    expect(f.vehicles.some((v) => v.report_delay_ms >= 2 * 3_600_000)).toBe(true);
    expect(new Set(f.vehicles.map((v) => v.department))).toEqual(
      new Set(['Sales', 'Field Service', 'Logistics', 'Executive']),
    );
    expect(f.vehicles.filter((v) => v.powertrain === 'can').length).toBeGreaterThan(f.vehicles.length / 2);
    expect(f.vehicles.filter((v) => v.powertrain === 'analog').length).toBeGreaterThanOrEqual(2);
    for (const v of f.vehicles) expect(v.chassis_number).toHaveLength(17);
  });
});

describe('truth', () => {
  const clipped = (id: number, a: number, b: number) =>
    f
      .tripsOf(id)
      .reduce(
        (sum, t) =>
          sum +
          (t.distance_m * Math.max(0, Math.min(b, t.end_ms) - Math.max(a, t.start_ms))) /
            (t.end_ms - t.start_ms),
        0,
      );

  it('distanceM equals the sum of trip distances clipped to the window', () => {
    const windows: [number, number][] = [
      [f.startMs, f.endMs],
      [f.startMs + 17 * DAY + 7_777_000, f.startMs + 48 * DAY + 123_000],
      [f.endMs - 2 * DAY - 5 * 3_600_000, f.endMs - DAY + 1_000],
    ];
    for (const id of ids)
      for (const [a, b] of windows) expect(f.truth.distanceM(id, a, b)).toBeCloseTo(clipped(id, a, b), 3);
    // A window cut at local midnight splits a midnight-crossing trip between the two days.
    const night = ids
      .flatMap((id) => f.tripsOf(id))
      .find((t) => localDate(t.start_ms, zone) !== localDate(t.end_ms - 1, zone))!;
    const first = localDayBounds(localDate(night.start_ms, zone), zone);
    const before = f.truth.distanceM(night.vehicle_id, first.startMs, first.endMs);
    const after = f.truth.distanceM(night.vehicle_id, first.endMs, first.endMs + DAY);
    const dayTrips = (a: number, b: number) =>
      f
        .tripsOf(night.vehicle_id)
        .filter((t) => t.start_ms >= a && t.end_ms <= b)
        .reduce((x, t) => x + t.distance_m, 0);
    const share = (night.distance_m * (first.endMs - night.start_ms)) / (night.end_ms - night.start_ms);
    expect(before).toBeCloseTo(dayTrips(first.startMs, first.endMs) + share, 6);
    expect(after).toBeGreaterThanOrEqual(night.distance_m - share - 1e-6);
  });

  it('trips(from, to) lists every overlapping trip, in (start, trip_id) order', () => {
    const a = f.startMs + 30 * DAY + 11 * 3_600_000;
    const b = a + 36 * 3_600_000;
    const got = f.truth.trips(a, b);
    const want = ids.flatMap((id) => f.tripsOf(id).filter((t) => t.start_ms < b && t.end_ms > a));
    expect(got.map((t) => t.trip_id).sort()).toEqual(want.map((t) => t.trip_id).sort());
    for (let i = 1; i < got.length; i++)
      expect(got[i]!.start_ms).toBeGreaterThanOrEqual(got[i - 1]!.start_ms);
  });

  it('visits and toll visits by enter time', () => {
    const a = f.startMs + 50 * DAY;
    const b = a + 7 * DAY;
    const toll = new Set(f.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));
    const all = ids.flatMap((id) => f.visitsOf(id).filter((v) => v.enter_ms >= a && v.enter_ms < b));
    expect(f.truth.visits(a, b)).toHaveLength(all.length);
    const tolls = f.truth.tollVisits(a, b);
    expect(tolls).toHaveLength(all.filter((v) => toll.has(v.geofence_id)).length);
    expect(tolls.every((v) => toll.has(v.geofence_id))).toBe(true);
  });
});
