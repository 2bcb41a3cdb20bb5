/**
 * The tax logbook against the simulator's truth (issue 27): a fleet synced over 75 days
 * (2026-02-05 … 2026-04-20, Australia/Sydney) that cross the 1 March (ZA) and 1 April (NZ) tax-year
 * starts. Per vehicle × tax year, business, private and unclassified km equal the distance the
 * simulator really drove on the trips it typed that way, to 0.1 km (it knows each trip's type);
 * the trips overlapping a local day of an odometer event (which the odometer rule leaves out) are
 * counted apart, as the simulator's events say, not as the report says. A trip across the tax
 * year's midnight closes the old year and opens the new one at its own closing reading (the
 * simulator's), and each vehicle-year whose trips are all counted adds up: business + private +
 * unclassified km = its distance by odometer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../src/reports/run.ts';
import { addDays, localDate, localDayBounds } from '../../src/time.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;

beforeAll(async () => {
  // a reset in the middle of March and a tracker change in April, beside the generator's own events
  h = await startHarness({
    fleet: {
      vehicles: 8,
      odometerEvents: [
        { vehicleIndex: 1, day: 35, hour: 3, kind: 'odometer_reset' },
        { vehicleIndex: 2, day: 60, hour: 2, kind: 'terminal_has_changed' },
      ],
    },
  });
  const s = await h.sync({ streams: ['trips', 'odometer'] });
  expect(s.outcome).toBe('ok');
}, 240_000);
afterAll(() => h?.close());

/** The local days on which the simulator's odometer events fall, per vehicle, as instants. */
function eventDays(vehicleId: number): [number, number][] {
  return h.fleet.odometerEvents
    .filter((e) => e.vehicle_id === vehicleId)
    .map((e) => {
      const b = localDayBounds(localDate(e.at_ms, h.fleet.timezone), h.fleet.timezone);
      return [b.startMs, b.endMs];
    });
}

function checkYear(r: JsonRow, yearFirstDay: string, yearLastDay: string) {
  const zone = h.fleet.timezone;
  const from = localDayBounds(yearFirstDay, zone).startMs;
  const to = localDayBounds(yearLastDay, zone).endMs;
  const v = Number(r.vehicle_id);
  const truth = h.fleet.truth.logbookKm(v, from, to, eventDays(v));
  const km = (m: number) => m / 1000;
  expect(Math.abs(Number(r.business_km) - km(truth.business_m)), `${r.registration} business`).toBeLessThan(
    0.1,
  );
  expect(Math.abs(Number(r.private_km) - km(truth.private_m)), `${r.registration} private`).toBeLessThan(0.1);
  expect(
    Math.abs(Number(r.unclassified_km) - km(truth.unclassified_m)),
    `${r.registration} unclassified`,
  ).toBeLessThan(0.1);
  expect(r.trips, `${r.registration} trips`).toBe(truth.trips);
  expect(r.trips_not_counted, `${r.registration} not counted`).toBe(truth.left_out_trips);
  return truth;
}

describe('the tax logbook against the simulator', () => {
  it.each([
    ['ZA, from 1 March', '03-01', ['2025-03-01', '2026-02-28'], ['2026-03-01', '2027-02-28']],
    ['NZ, from 1 April', '04-01', ['2025-04-01', '2026-03-31'], ['2026-04-01', '2027-03-31']],
  ] as const)(
    '%s: business, private and unclassified km per vehicle-year equal the truth',
    async (_n, start, old, now) => {
      const rows = await h.report(
        'logbook_years',
        { from: h.firstDay, to: h.lastDay },
        { taxYearStart: start },
      );
      expect(rows.length).toBe(2 * h.fleet.vehicles.length);
      let business = 0;
      let priv = 0;
      let unclassified = 0;
      let leftOut = 0;
      let crossing = 0;
      let addsUp = 0;
      for (const r of rows) {
        const isOld = r.year_start === old[0];
        expect([old[0], now[0]]).toContain(r.year_start);
        expect(r.year_end).toBe(isOld ? old[1] : now[1]);
        const t = checkYear(r, String(r.year_start), String(r.year_end));
        business += t.business_m;
        priv += t.private_m;
        unclassified += t.unclassified_m;
        leftOut += t.left_out_trips;
        // the history starts inside the old year and ends inside the new one: both say partial
        expect(r.coverage).toBe('partial');
        // a trip is in the year it starts in, whole: when the year's last trip (or the previous
        // year's) crosses the year's end at local midnight, the year closes (the next one opens)
        // at that trip's closing reading, on the day it ends; else at the odometer at midnight
        const zone = h.fleet.timezone;
        const v = Number(r.vehicle_id);
        const edge = isOld ? localDayBounds(old[1], zone).endMs : localDayBounds(now[0], zone).startMs;
        const across = h.fleet
          .tripsOf(v)
          .filter((t) => t.start_ms < edge)
          .at(-1);
        const crosses = across !== undefined && across.end_ms > edge;
        if (crosses) crossing++;
        const day = crosses ? localDate(across.end_ms, zone) : isOld ? old[1] : now[0];
        expect(r[isOld ? 'closing_odometer_day' : 'opening_odometer_day']).toBe(day);
        expect(r[isOld ? 'closing_odometer_trip' : 'opening_odometer_trip']).toBe(
          crosses ? across.trip_id : null,
        );
        // the reading there: the crossing trip's closing one, or (opening) the odometer at midnight
        if (crosses || !isOld) {
          const reading = crosses ? across.end_odometer_m : h.fleet.odometerAt(v, edge);
          expect(r[isOld ? 'closing_odometer_km' : 'opening_odometer_km']).toBeCloseTo(
            Math.round(reading) / 1000,
            3,
          );
        }
        // the statement adds up: the km by class are the distance by odometer when every trip is
        // counted, and never more than it
        const parts = Number(r.business_km) + Number(r.private_km) + Number(r.unclassified_km);
        expect(parts, `${r.registration} ${r.tax_year} parts`).toBeLessThanOrEqual(
          Number(r.odometer_km) + 0.05,
        );
        if (r.trips_not_counted === 0) {
          expect(
            Math.abs(parts - Number(r.odometer_km)),
            `${r.registration} ${r.tax_year} adds up`,
          ).toBeLessThan(0.1);
          addsUp++;
        }
        if (Number(r.odometer_km) > 0)
          expect(Number(r.business_share)).toBeCloseTo(Number(r.business_km) / Number(r.odometer_km), 3);
      }
      // the simulator types most trips Business, some Private, a few None; and the events left some out
      expect(business).toBeGreaterThan(3 * priv);
      expect(priv).toBeGreaterThan(unclassified * 0.5);
      expect(unclassified).toBeGreaterThan(0);
      expect(leftOut).toBeGreaterThan(0);
      // the seeded fleet has a trip across the 1 March / 1 April midnight (its closing and opening)
      expect(crossing).toBeGreaterThan(0);
      expect(addsUp).toBeGreaterThan(0);
    },
  );

  it('lists every trip of a vehicle-year, private ones with what the API did not send named', async () => {
    const v = h.fleet.vehicles[1]!;
    const rows = await h.report('logbook', {
      from: '2026-03-01',
      to: h.lastDay,
      vehicle: String(v.vehicle_id),
    });
    const zone = h.fleet.timezone;
    const truthTrips = h.fleet
      .tripsOf(v.vehicle_id)
      .filter(
        (t) =>
          t.start_ms >= localDayBounds('2026-03-01', zone).startMs &&
          t.start_ms < localDayBounds(addDays(h.lastDay, 1), zone).startMs,
      );
    expect(rows.map((r) => r.trip_id)).toEqual(truthTrips.map((t) => t.trip_id));
    const priv = rows.filter((r) => r.trip_class === 'private');
    expect(priv.length).toBeGreaterThan(0);
    for (const r of priv) {
      expect(r.start_place).toBeNull();
      expect(r.purpose).toBeNull();
      expect(String(r.not_sent)).toMatch(/^start place, end place, purpose/);
    }
    const business = rows.filter((r) => r.trip_class === 'business');
    expect(business.every((r) => typeof r.purpose === 'string' && r.start_place !== null)).toBe(true);
    // the reset of day 35 (12 March): that day's trips are marked and not counted
    const reset = rows.filter((r) => r.odometer_status === 'left_out');
    expect(reset.length).toBeGreaterThan(0);
    expect(reset.every((r) => r.counted_km === null && r.odometer_reason === 'odometer_reset')).toBe(true);
  });
});
