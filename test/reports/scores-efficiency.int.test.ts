/**
 * driver_scores and fuel_efficiency on a synced simulator fleet, against the simulator's ground
 * truth (issue 27): each trip's harsh events and speeding come from `tripTraits` (the generator's
 * truth per trip, what the wire sends), the fuel burned and distance driven from
 * `fleet.truth.fuelUsedL` / `distanceM`. The scores are recomputed here from the documented
 * formula; L/100 km per vehicle-month must be within 0.1 of the truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_MIN_KM, DEFAULT_SCORE_WEIGHTS as W } from '../../src/defaults.ts';
import { tripTraits } from '../../src/simulator/gen/trip-traits.ts';
import { localMonth, localMonthBounds } from '../../src/time.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;

beforeAll(async () => {
  // 100 days: four local months, so a month can be asked alone and inside longer ranges. Only the
  // streams these reports read (trips, odometer, fuel counter, their vehicles and drivers): the
  // visits, bookings, activity and level series of 100 days are most of a whole sync's cost.
  h = await startHarness({ fleet: { seed: 11, vehicles: 8, days: 100, endDay: '2026-04-20' } });
  const run = await h.sync({ streams: ['vehicles', 'trips', 'odometer', 'fuel', 'drivers'] });
  expect(run.outcome).toBe('ok');
  expect(Object.keys(run.streams).sort()).toEqual(['drivers', 'fuel', 'odometer', 'trips', 'vehicles']);
}, 240_000);
afterAll(() => h?.close());

const range = () => ({ from: h.firstDay, to: h.lastDay });

describe('fuel_efficiency against the simulator’s truth', () => {
  it('L/100 km per vehicle-month within 0.1 of the fuel truly burned over the distance truly driven', async () => {
    const rows = await h.report('fuel_efficiency', range());
    const zone = h.fleet.timezone;
    const counter = h.fleet.vehicles.filter((v) => v.sensors.fuel_canbus_consumed).map((v) => v.vehicle_id);
    expect(new Set(rows.map((r) => r.vehicle_id))).toEqual(new Set(counter));
    const known = rows.filter((r) => r.l_per_100km !== null);
    expect(known.length).toBeGreaterThanOrEqual(counter.length * 3);
    for (const r of known) {
      const vid = Number(r.vehicle_id);
      const { startMs, endMs } = localMonthBounds(String(r.period), zone);
      const truth =
        (h.fleet.truth.fuelUsedL(vid, startMs, endMs) / h.fleet.truth.distanceM(vid, startMs, endMs)) *
        100_000;
      expect(
        Math.abs(Number(r.l_per_100km) - truth),
        `${String(r.registration)} ${String(r.period)}`,
      ).toBeLessThan(0.1);
      // the counted km never exceed what was driven in the month
      expect(Number(r.counted_km)).toBeLessThanOrEqual(
        h.fleet.truth.distanceM(vid, startMs, endMs) / 1000 + 0.01,
      );
    }
    // a steady consumption makes no outlier; the last month has a baseline of earlier months
    const withBaseline = known.filter((r) => r.baseline_l_per_100km !== null);
    expect(withBaseline.length).toBeGreaterThanOrEqual(counter.length);
    for (const r of withBaseline) {
      expect(r.outlier).toBe(false);
      expect(Math.abs(Number(r.above_baseline))).toBeLessThan(0.02);
    }
  });

  it('per driver: the litres the trips carry over their km, within 0.1 of the vehicles’ truth', async () => {
    const rows = await h.report('fuel_efficiency_drivers', range());
    expect(rows.length).toBeGreaterThan(3);
    const consumption = new Map(h.fleet.vehicles.map((v) => [v.vehicle_id, v.consumption_l_per_100km]));
    const zone = h.fleet.timezone;
    const trips = h.fleet.truth.trips(Date.parse(`${h.firstDay}T00:00:00Z`) - 86_400_000, h.fleet.endMs);
    for (const r of rows) {
      // the driver's trips in counter vehicles that month: their km-weighted consumption
      const mine = trips.filter(
        (t) =>
          (t.driver_id ?? null) === r.driver_id &&
          localMonth(t.start_ms, zone) === r.period &&
          h.fleet.vehicles.find((v) => v.vehicle_id === t.vehicle_id)?.sensors.fuel_canbus_consumed,
      );
      const lo = Math.min(...mine.map((t) => consumption.get(t.vehicle_id)!));
      const hi = Math.max(...mine.map((t) => consumption.get(t.vehicle_id)!));
      const label = `${String(r.driver_name)} ${String(r.period)}`;
      expect(Number(r.l_per_100km), label).toBeGreaterThanOrEqual(lo - 0.1);
      expect(Number(r.l_per_100km), label).toBeLessThanOrEqual(hi + 0.1);
      if (lo === hi) expect(Math.abs(Number(r.l_per_100km) - lo), label).toBeLessThan(0.1);
    }
  });
});

describe('fuel_efficiency does not change with the range asked (issue 27 item 3)', () => {
  const key = (r: Record<string, unknown>, who: string) => `${String(r[who])} ${String(r.period)}`;
  /** Each month of the history asked alone, and the history cut into three longer ranges. */
  const ranges = () => {
    const months: string[] = [];
    for (let m = h.firstDay.slice(0, 7); m <= h.lastDay.slice(0, 7);) {
      months.push(m);
      m = new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 1)).toISOString().slice(0, 7);
    }
    const lastDayOf = (m: string) =>
      new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).toISOString().slice(0, 10);
    const alone = months.map((m) => ({
      from: m === h.firstDay.slice(0, 7) ? h.firstDay : `${m}-01`,
      to: m === h.lastDay.slice(0, 7) ? h.lastDay : lastDayOf(m),
    }));
    const longer = [
      { from: h.firstDay, to: h.lastDay },
      { from: alone[1]!.from, to: h.lastDay },
      { from: h.firstDay, to: alone[alone.length - 2]!.to },
    ];
    return { alone, longer };
  };

  it('every vehicle-month and driver-month asked alone equals the same month inside longer ranges', async () => {
    const { alone, longer } = ranges();
    expect(alone.length).toBeGreaterThanOrEqual(4);
    const cases = [
      {
        report: 'fuel_efficiency',
        who: 'vehicle_id',
        figures: ['counted_km', 'counted_l', 'l_per_100km', 'left_out_periods', 'baseline_l_per_100km'],
      },
      {
        report: 'fuel_efficiency_drivers',
        who: 'driver_id',
        figures: ['trips', 'trip_km', 'carried_l', 'l_per_100km'],
      },
    ];
    for (const c of cases) {
      const one = new Map<string, unknown[]>();
      for (const r of alone) {
        for (const row of await h.report(c.report, r))
          one.set(
            key(row, c.who),
            c.figures.map((f) => row[f]),
          );
      }
      expect([...one.values()].filter((v) => v[2] !== null).length, c.report).toBeGreaterThanOrEqual(8);
      for (const r of longer) {
        const rows = await h.report(c.report, r);
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          const k = key(row, c.who);
          expect(
            c.figures.map((f) => row[f]),
            `${c.report} ${k} in ${r.from}..${r.to}`,
          ).toEqual(one.get(k));
        }
      }
    }
  });

  it('the drivers of a month carry at most the litres the vehicles counted that month', async () => {
    const vehicles = await h.report('fuel_efficiency', range());
    const drivers = await h.report('fuel_efficiency_drivers', range());
    const sum = (rows: Record<string, unknown>[], col: string) => {
      const m = new Map<string, number>();
      for (const r of rows) m.set(String(r.period), (m.get(String(r.period)) ?? 0) + Number(r[col] ?? 0));
      return m;
    };
    const counted = sum(vehicles, 'counted_l');
    const carried = sum(drivers, 'carried_l');
    expect(carried.size).toBeGreaterThanOrEqual(3);
    for (const [period, litres] of carried) {
      // rounded to 3 places per row: a little slack per driver row
      expect(litres, period).toBeLessThanOrEqual((counted.get(period) ?? 0) + 0.001 * drivers.length);
      expect(litres, period).toBeGreaterThan(0);
    }
  });
});

describe('driver_scores against the simulator’s truth per trip', () => {
  it('distance, events, score and rank per driver-month from the trips’ truth and the documented formula', async () => {
    const rows = await h.report('driver_scores', range());
    const zone = h.fleet.timezone;
    const { startMs } = localMonthBounds(h.firstDay.slice(0, 7), zone);
    const trips = h.fleet.truth
      .trips(startMs, h.fleet.endMs)
      .filter((t) => t.start_ms >= startMs && t.end_ms <= h.fleet.endMs);
    type Acc = { km: number; b: number; a: number; c: number; s: number; min: number };
    const truth = new Map<string, Acc>();
    for (const t of trips) {
      const k = `${t.driver_id ?? '-'}|${localMonth(t.start_ms, zone)}`;
      const x = truth.get(k) ?? { km: 0, b: 0, a: 0, c: 0, s: 0, min: 0 };
      const tr = tripTraits(t);
      x.km += Math.round(t.distance_m) / 1000;
      x.b += tr.harsh_braking_events;
      x.a += tr.harsh_acceleration_events;
      x.c += tr.harsh_cornering_events;
      x.s += tr.road_speeding_events;
      x.min += tr.road_speeding_duration_seconds / 60;
      truth.set(k, x);
    }
    const score = (x: Acc) =>
      Math.round(
        Math.max(
          0,
          100 -
            ((W.braking * x.b +
              W.acceleration * x.a +
              W.cornering * x.c +
              W.speeding * x.s +
              W.speeding_min * x.min) *
              100) /
              x.km,
        ) * 10,
      ) / 10;
    let compared = 0;
    for (const r of rows) {
      const x = truth.get(`${r.driver_id ?? '-'}|${String(r.period)}`);
      const label = `${String(r.driver_name)} ${String(r.period)}`;
      if (!x) {
        expect([r.trips, r.distance_km, r.score], label).toEqual([0, 0, null]);
        continue;
      }
      compared++;
      expect(Math.abs(Number(r.distance_km) - x.km), label).toBeLessThan(0.1);
      expect(
        [r.harsh_braking_events, r.harsh_acceleration_events, r.harsh_cornering_events, r.speeding_events],
        label,
      ).toEqual([x.b, x.a, x.c, x.s]);
      expect(Number(r.score), label).toBeCloseTo(score(x), 1);
    }
    expect(compared).toBeGreaterThan(5);
    // rank per month: the drivers with the minimum distance, by score, equal scores sharing a place
    for (const period of new Set(rows.map((r) => r.period))) {
      const eligible = rows.filter(
        (r) =>
          r.period === period &&
          r.driver_id !== null &&
          Number(r.distance_km) >= DEFAULT_SCORE_MIN_KM &&
          r.score !== null,
      );
      for (const r of eligible)
        expect(r.rank, `${String(r.driver_name)} ${String(period)}`).toBe(
          1 + eligible.filter((o) => Number(o.score) > Number(r.score)).length,
        );
      for (const r of rows.filter((x) => x.period === period && !eligible.includes(x)))
        expect(r.rank).toBeNull();
    }
  });
});
