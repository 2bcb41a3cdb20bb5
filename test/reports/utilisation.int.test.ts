/**
 * Vehicle activity, utilisation and drivers against the simulator's ground truth: the activity
 * stream is synced day by day (the 25-hour day when Sydney's clocks go back is one request), and
 * the reports' driving, idle and after-hours hours per vehicle-day and per month, days used out
 * of days available and distance per driver equal figures worked out here from the simulator's
 * trips. A day never synced is blank, not 0; a payload that does not parse fails its window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idleSecondsOf } from '../../src/simulator/gen/activity.ts';
import type { SimTrip } from '../../src/simulator/model.ts';
import { addDays, localDayBounds, parseLocal } from '../../src/time.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';
import { expectVehiclePagesExact } from '../helpers/vehicle-pages.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';

let h: Harness;
/**
 * What this file's reports read (activity; the drivers' trips, bookings and names, their vehicles):
 * the whole history of these only, not of the odometer, fuel, visits and level series.
 */
const STREAMS = ['vehicles', 'carpool', 'trips', 'bookings', 'drivers', 'activity'];
const DAYS = 40; // 2026-03-12 … 2026-04-20 in Australia/Sydney: two local months and the 5 April change

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 12, days: DAYS } });
}, 60_000);
afterAll(() => h?.close());

const query = (sql: string, params: (string | number)[] = []) => queryDb(h.db, sql, params);

const days = () => {
  const out: string[] = [];
  for (let d = h.firstDay; d <= h.lastDay; d = addDays(d, 1)) out.push(d);
  return out;
};
const overlap = (a0: number, a1: number, b0: number, b1: number) =>
  Math.max(0, Math.min(a1, b1) - Math.max(a0, b0)) / 1000;
const isoDow = (day: string) => ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** Hand-worked truth for one vehicle-day: engine-on is each trip, its first idle seconds idling. */
function truthOf(trips: readonly SimTrip[], day: string, zone: string) {
  const b = localDayBounds(day, zone);
  const w0 = parseLocal(`${day} 07:00:00`, zone)!;
  const w1 = parseLocal(`${day} 18:00:00`, zone)!;
  const working = isoDow(day) <= 5;
  let idle = 0;
  let driving = 0;
  let after = 0;
  for (const t of trips) {
    const idleEnd = t.start_ms + idleSecondsOf(t) * 1000;
    idle += overlap(t.start_ms, idleEnd, b.startMs, b.endMs);
    driving += overlap(idleEnd, t.end_ms, b.startMs, b.endMs);
    const on = overlap(t.start_ms, t.end_ms, b.startMs, b.endMs);
    after +=
      on - (working ? overlap(t.start_ms, t.end_ms, Math.max(w0, b.startMs), Math.min(w1, b.endMs)) : 0);
  }
  return { idle, driving, after, used: idle + driving > 0, working };
}

describe('vehicle activity and utilisation', () => {
  it('an activity payload that does not parse fails its window with the reason and a sample; nothing of it is stored', async () => {
    const day = addDays(h.lastDay, -10);
    h.sim.setFaults({ fieldFault: { kind: 'activity', field: 'idle_time_seconds' } });
    try {
      const s = await h.sync({ fromDay: day, toDay: day, streams: ['activity'] });
      expect(s.outcome).not.toBe('ok');
      expect(s.streams.activity?.windows.failed).toBe(1);
    } finally {
      h.sim.setFaults({});
    }
    const failed = await query(
      "SELECT reason, sample FROM ledger WHERE account = $1 AND stream = 'activity' AND status = 'failed'",
      [ACCOUNT],
    );
    expect(failed).toHaveLength(1);
    expect(String(failed[0]!.reason)).toMatch(/idle_time_seconds/);
    expect(String(failed[0]!.sample)).toContain('driving_time_seconds');
    const [n] = await query('SELECT count(*)::INTEGER AS n FROM vehicle_activity');
    expect(n!.n).toBe(0);
    const rows = await h.report('utilisation_days', { from: day, to: day });
    expect(rows.length).toBe(h.fleet.vehicles.length);
    for (const r of rows)
      expect([r.driving_h, r.idle_h, r.after_hours_h, r.synced]).toEqual([null, null, null, false]);
  }, 60_000);

  it('a drivers payload that does not parse fails the run with the reason; the drivers stored stay', async () => {
    h.sim.setFaults({ fieldFault: { kind: 'driver', field: 'driver_id' } });
    try {
      const s = await h.sync({ fromDay: h.lastDay, toDay: h.lastDay, streams: ['drivers'] });
      expect(s.outcome).not.toBe('ok');
      expect(JSON.stringify(s.errors)).toMatch(/GET \/drivers[\s\S]*driver_id/);
    } finally {
      h.sim.setFaults({});
    }
    const [n] = await query('SELECT count(*)::INTEGER AS n FROM drivers');
    expect(n!.n).toBe(0);
  }, 60_000);

  it('days never synced are blank, not 0: a month synced for three days says so', async () => {
    const from = addDays(h.lastDay, -2);
    const s = await h.sync({ fromDay: from, toDay: h.lastDay, streams: ['activity', 'trips'] });
    expect(s.outcome).toBe('ok');
    const months = await h.report('utilisation');
    const march = months.filter((r) => r.period === '2026-03');
    const april = months.filter((r) => r.period === '2026-04');
    expect(march.length).toBe(h.fleet.vehicles.length);
    for (const r of march) {
      expect([r.driving_h, r.idle_h, r.idle_share, r.days_used, r.days_available, r.after_hours_h]).toEqual([
        null,
        null,
        null,
        null,
        null,
        null,
      ]);
      expect(r.days_synced).toBe(0);
      expect(r.complete).toBe(false);
    }
    for (const r of april) {
      expect(r.days_synced).toBe(3);
      expect(r.complete).toBe(false);
      expect(r.driving_h).not.toBeNull();
    }
  }, 60_000);

  it('syncs every local day as one window, the 25-hour day too', async () => {
    const s = await h.sync({ streams: STREAMS });
    expect(s.outcome).toBe('ok');
    const led = await query(
      `SELECT strftime(timezone($2, window_start), '%Y-%m-%d') AS d, epoch(window_end) - epoch(window_start) AS len_s, status
       FROM ledger WHERE account = $1 AND stream = 'activity' ORDER BY window_start`,
      [ACCOUNT, h.fleet.timezone],
    );
    expect(led.map((r) => r.d)).toEqual(days());
    expect(new Set(led.map((r) => r.status))).toEqual(new Set(['done']));
    expect(led.find((r) => r.d === '2026-04-05')!.len_s).toBe(25 * 3600);
    const again = await h.sync({ streams: STREAMS });
    expect(again.streams.activity).toBeUndefined();
  }, 120_000);

  it('driving, idle and after-hours hours per vehicle-day equal the simulator’s', async () => {
    const rows = await h.report('utilisation_days');
    expect(rows.length).toBe(h.fleet.vehicles.length * DAYS);
    let checked = 0;
    let afterHoursDays = 0;
    for (const v of h.fleet.vehicles) {
      const trips = h.fleet.tripsOf(v.vehicle_id);
      for (const day of days()) {
        const r = rows.find((x) => x.vehicle_id === v.vehicle_id && x.day === day)!;
        const t = truthOf(trips, day, h.fleet.timezone);
        expect(r.driving_h, `${v.registration} ${day}`).toBeCloseTo(t.driving / 3600, 2);
        expect(r.idle_h, `${v.registration} ${day}`).toBeCloseTo(t.idle / 3600, 2);
        expect(r.after_hours_h, `${v.registration} ${day}`).toBeCloseTo(t.after / 3600, 2);
        expect(r.used).toBe(t.used);
        expect(r.working_day).toBe(t.working);
        if (t.after > 0) afterHoursDays++;
        checked++;
      }
    }
    expect(checked).toBe(h.fleet.vehicles.length * DAYS);
    expect(afterHoursDays).toBeGreaterThan(0); // the fleet does drive after hours
  });

  it('a page of utilisation_days read vehicle by vehicle is the slice of the whole result, with its totals', async () => {
    const def = requireReport('utilisation_days');
    const scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
    const params = parseReportParams({ from: h.firstDay, to: h.lastDay }, def, scope);
    const con = await h.db.connect();
    try {
      const got = await expectVehiclePagesExact(con, def, scope, params);
      expect(got).toEqual({ rows: h.fleet.vehicles.length * DAYS, vehicles: h.fleet.vehicles.length });
      // the totals are of known hours: the simulator's fleet drove
      const page = await runReport(con, def, scope, params, { limit: 5, offset: 0 });
      expect(page.totals.driving_h).toBeGreaterThan(0);
      expect(page.totals_blank.driving_h).toBe(0);
    } finally {
      con.closeSync();
    }
  });

  it('utilisation per vehicle and month: hours, idle share, days used of days available, after hours', async () => {
    const rows = await h.report('utilisation');
    for (const v of h.fleet.vehicles) {
      const trips = h.fleet.tripsOf(v.vehicle_id);
      for (const period of ['2026-03', '2026-04']) {
        const ds = days().filter((d) => d.startsWith(period));
        const t = ds.map((d) => truthOf(trips, d, h.fleet.timezone));
        const sum = (f: (x: (typeof t)[number]) => number) => t.reduce((a, x) => a + f(x), 0);
        const r = rows.find((x) => x.vehicle_id === v.vehicle_id && x.period === period)!;
        const idle = sum((x) => x.idle);
        const driving = sum((x) => x.driving);
        expect(r.driving_h).toBeCloseTo(driving / 3600, 2);
        expect(r.idle_h).toBeCloseTo(idle / 3600, 2);
        if (idle + driving > 0) expect(r.idle_share).toBeCloseTo(idle / (idle + driving), 3);
        else expect(r.idle_share).toBeNull();
        expect(r.days_used).toBe(t.filter((x) => x.working && x.used).length);
        expect(r.days_available).toBe(t.filter((x) => x.working).length);
        expect(r.after_hours_h).toBeCloseTo(sum((x) => x.after) / 3600, 2);
        expect(r.days_synced).toBe(ds.length);
      }
    }
    // March is synced from the 12th only: not complete; the figures cover the synced days.
    expect(rows.find((x) => x.period === '2026-03')!.complete).toBe(false);
  });

  it('working hours are the account’s: a run with Mon-Sat 06:00-20:00 moves the after-hours figures', async () => {
    const before = await h.report('utilisation');
    const { parseWorkingHours } = await import('../../src/working-hours.ts');
    const wh = parseWorkingHours('Mon-Sat 06:00-20:00');
    if (!wh.ok) throw new Error(wh.error);
    await h.sync({ fromDay: h.lastDay, toDay: h.lastDay, streams: ['drivers'] }); // records nothing new…
    h.deps.workingHours = wh.value; // …until the account's setting changes
    await h.sync({ fromDay: h.lastDay, toDay: h.lastDay, streams: ['drivers'] });
    const after = await h.report('utilisation');
    const sumAfter = (rs: typeof before) => rs.reduce((a, r) => a + Number(r.after_hours_h ?? 0), 0);
    expect(sumAfter(after)).toBeLessThan(sumAfter(before));
    // Saturdays are working days now.
    expect(after.find((r) => r.period === '2026-04')!.days_available).toBeGreaterThan(
      before.find((r) => r.period === '2026-04')!.days_available as number,
    );
    h.deps.workingHours = undefined;
    await h.sync({ fromDay: h.lastDay, toDay: h.lastDay, streams: ['drivers'] });
  }, 60_000);
});

describe('drivers', () => {
  it('distance, trips, bookings and late returns per driver and month equal the simulator’s', async () => {
    const rows = await h.report('drivers');
    const zone = h.fleet.timezone;
    const trips = h.fleet.vehicles.flatMap((v) => h.fleet.tripsOf(v.vehicle_id));
    const inRange = (ms: number) => ms >= h.fleet.startMs && ms < h.fleet.endMs;
    let drivers = 0;
    for (const d of h.fleet.drivers) {
      for (const period of ['2026-03', '2026-04']) {
        const start = localDayBounds(`${period}-01`, zone).startMs;
        const end = localDayBounds(`${period === '2026-03' ? '2026-04' : '2026-05'}-01`, zone).startMs;
        const mine = trips.filter(
          (t) =>
            t.driver_id === d.driver_id && t.start_ms >= start && t.start_ms < end && inRange(t.start_ms),
        );
        const r = rows.find((x) => x.driver_id === d.driver_id && x.period === period)!;
        expect(r.driver_name).toBe(`${d.first_name} ${d.last_name}`);
        expect(r.trips).toBe(mine.length);
        expect(r.distance_km).toBeCloseTo(mine.reduce((a, t) => a + Math.round(t.distance_m), 0) / 1000, 2);
        if (mine.length) drivers++;
      }
    }
    expect(drivers).toBeGreaterThan(0);
    // Bookings and late returns: every booking the simulator has overlapping the synced range
    // (bookings are synced a month ahead), by the local month it is scheduled to start in; late by booking_status only.
    const views = h.fleet.truth.bookings(
      h.fleet.startMs,
      localDayBounds('2026-05-01', zone).startMs,
      h.now(),
    );
    const LATE = ['BOOKING_STATUS_ACTIVE_LATE', 'BOOKING_STATUS_RETURNED_LATE'];
    let booked = 0;
    for (const d of h.fleet.drivers)
      for (const period of ['2026-03', '2026-04']) {
        const start = localDayBounds(`${period}-01`, zone).startMs;
        const end = localDayBounds(`${period === '2026-03' ? '2026-04' : '2026-05'}-01`, zone).startMs;
        const mine = views.filter(
          (b) =>
            b.booking.driver_id === d.driver_id && b.booking.start_ms >= start && b.booking.start_ms < end,
        );
        const r = rows.find((x) => x.driver_id === d.driver_id && x.period === period)!;
        expect(r.bookings, `${d.first_name} ${period}`).toBe(mine.length);
        expect(r.late_returns, `${d.first_name} ${period}`).toBe(
          mine.filter((b) => LATE.includes(b.status)).length,
        );
        booked += mine.length;
      }
    expect(booked).toBeGreaterThan(0);
  });

  it('a "no driver recorded" row per month holds the trips without a driver; the shares add up (issue 25)', async () => {
    const rows = await h.report('drivers');
    const zone = h.fleet.timezone;
    const trips = h.fleet.vehicles
      .flatMap((v) => h.fleet.tripsOf(v.vehicle_id))
      .filter((t) => t.start_ms >= h.fleet.startMs && t.start_ms < h.fleet.endMs);
    for (const period of ['2026-03', '2026-04']) {
      const start = localDayBounds(`${period}-01`, zone).startMs;
      const end = localDayBounds(`${period === '2026-03' ? '2026-04' : '2026-05'}-01`, zone).startMs;
      const month = trips.filter((t) => t.start_ms >= start && t.start_ms < end);
      const none = month.filter((t) => t.driver_id === null || t.driver_id === undefined);
      const km = (ts: typeof month) => ts.reduce((a, t) => a + Math.round(t.distance_m), 0) / 1000;
      const rest = rows.filter((r) => r.period === period && r.driver_id === null);
      expect(rest).toHaveLength(1);
      expect(rest[0]).toMatchObject({ driver_name: 'no driver recorded', trips: none.length });
      expect(rest[0]!.distance_km).toBeCloseTo(km(none), 2);
      expect(none.length, 'the simulator has trips without a driver').toBeGreaterThan(0);
      // the month's rows add up to all its trips, and their shares to 1
      const mine = rows.filter((r) => r.period === period);
      expect(mine.reduce((a, r) => a + Number(r.trips), 0)).toBe(month.length);
      expect(mine.reduce((a, r) => a + Number(r.distance_km), 0)).toBeCloseTo(km(month), 1);
      expect(mine.reduce((a, r) => a + Number(r.distance_share ?? 0), 0)).toBeCloseTo(1, 2);
      expect(rest[0]!.distance_share).toBeCloseTo(km(none) / km(month), 3);
    }
    // the remainder rows come last
    expect(rows.at(-1)!.driver_id).toBeNull();
  });

  it('trips and bookings name their driver beside the id', async () => {
    const byId = new Map(h.fleet.drivers.map((d) => [d.driver_id, `${d.first_name} ${d.last_name}`]));
    const trips = await h.report('trips');
    const withDriver = trips.filter((t) => t.driver_id !== null);
    expect(withDriver.length).toBeGreaterThan(0);
    for (const t of withDriver) expect(t.driver_name).toBe(byId.get(String(t.driver_id)));
    for (const t of trips.filter((x) => x.driver_id === null)) expect(t.driver_name).toBeNull();
    const bookings = await h.report('carpool');
    expect(bookings.length).toBeGreaterThan(0);
    for (const b of bookings) expect(b.driver_name).toBe(byId.get(String(b.driver_id)));
  });
});
