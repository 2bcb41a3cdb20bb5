/**
 * The service_due report against hand-worked figures (test/service/fixture.ts): an interval by km,
 * by months, both, an odometer reset since the service, a vehicle with too little history to
 * forecast, one with no service recorded; then a service recorded with `service done`, and a
 * plan file reloaded, which keeps it.
 *
 * Worked by hand (now = local 2026-07-20 12:00 AEST; every vehicle's odometer is known up to now,
 * its last window still open; the forecast rests on the settled windows that reach into the 30
 * days before, whole: June (30 days) and 1–17 July (16 days)):
 *   KM      15,000 km; serviced 1 June at 50,000: since 3,000 + 1,600 + 300 = 4,900 km, 10,100 to
 *           go; 4,600 km in 46 days = 100 km/day, so 101 days from now: 29 October → ok.
 *   MONTHS  6 months; serviced 25 January: due 25 July, 5 days → due (warning 30 days). Its km
 *           since are unknown (the odometer is synced from 1 June only) and not needed.
 *   BOTH    the fleet's 20,000 km / 12 months; serviced 10 June at 80,000: 21 of June's 30 days
 *           count (4,200 of 6,000 km) + 12,000 + 5,000 = 21,200 km → 1,200 km past: overdue;
 *           18,000 km in 46 days = 391.3 km/day, so reached 3.07 days before now: 17 July.
 *   RESET   the fleet's interval; serviced 1 June at 10,000: 1,400 + 1,500 + 1,600 + 200 = 4,700 km
 *           (the reset's day left out: 1 window); forecast from 16 June–17 July: 3,100 km in 31
 *           days = 100 km/day, 15,300 km → 153 days: 20 December → ok.
 *   NEW     serviced 10 July at 0: 700 + 300 = 1,000 km; only 7 settled days known → no forecast.
 *   NOSERVICE no service recorded → unknown, never ok.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadPricesFile } from '../../src/prices/store.ts';
import { loadServicePlanFile, recordServiceDone } from '../../src/service/store.ts';
import { reportOn } from '../helpers/synced.ts';
import { ACCOUNT, NOW, PLAN, ZONE, openServiceFixture, type ServiceFixture } from './fixture.ts';

let fx: ServiceFixture;
beforeEach(async () => {
  fx = await openServiceFixture();
});
afterEach(() => fx.close());

const due = async () => {
  const rows = await reportOn(fx.db, 'service_due', {}, { account: ACCOUNT, zone: ZONE, nowMs: NOW });
  return Object.fromEntries(rows.map((r) => [String(r.registration), r]));
};

describe('service_due against hand-worked figures', () => {
  it('gives each vehicle its next service by km and by date, the forecast and the status', async () => {
    const d = await due();
    expect(d.KM).toMatchObject({
      status: 'ok',
      interval_scope: 'vehicle',
      every_km: 15000,
      every_months: null,
      last_service_day: '2026-06-01',
      km_since_service: 4900,
      odometer_km: 54900,
      next_service_km: 65000,
      km_remaining: 10100,
      next_service_day: null,
      km_per_day: 100,
      forecast_basis_days: 46,
      forecast_day: '2026-10-29',
      due_day: '2026-10-29',
      odometer_as_of: '2026-07-20T12:00:00+10:00',
      reason: null,
    });
    expect(d.MONTHS).toMatchObject({
      status: 'due',
      interval_scope: 'vehicle',
      every_km: null,
      every_months: 6,
      next_service_day: '2026-07-25',
      days_remaining: 5,
      km_since_service: null,
      due_day: '2026-07-25',
      reason: '5 days to the date',
    });
    expect(d.BOTH).toMatchObject({
      status: 'overdue',
      interval_scope: 'fleet',
      km_since_service: 21200,
      km_remaining: -1200,
      next_service_km: 100000,
      next_service_day: '2027-06-10',
      days_remaining: 325,
      km_per_day: 391.3,
      forecast_day: '2026-07-17',
      due_day: '2026-07-17',
      reason: '1,200 km past the interval',
    });
    expect(d.RESET).toMatchObject({
      status: 'ok',
      km_since_service: 4700,
      excluded_periods: 1,
      odometer_km: 14700,
      km_remaining: 15300,
      km_per_day: 100,
      forecast_basis_days: 31,
      forecast_day: '2026-12-20',
      days_remaining: 316,
    });
    expect(d.NEW).toMatchObject({
      status: 'ok',
      km_since_service: 1000,
      km_remaining: 19000,
      km_per_day: null,
      forecast_basis_days: 7,
      forecast_day: null,
      due_day: null,
      reason: 'no forecast: 7.0 days of counted odometer known in the last 30 (14 needed)',
    });
    expect(d.NOSERVICE).toMatchObject({
      status: 'unknown',
      km_since_service: null,
      km_remaining: null,
      excluded_periods: null, // nothing to count the windows from: unknown, not 0
      reason: 'no last service recorded (the plan file or `fleetsync service done`)',
    });
    // overdue first, then due, unknown, ok
    const order = (
      await reportOn(fx.db, 'service_due', {}, { account: ACCOUNT, zone: ZONE, nowMs: NOW })
    ).map((r) => r.registration);
    expect(order).toEqual(['BOTH', 'MONTHS', 'NOSERVICE', 'KM', 'NEW', 'RESET']);
  });

  it('counts from a service recorded with `service done`, and a reloaded plan keeps it', async () => {
    const { vehicleId } = await recordServiceDone(
      fx.con,
      ACCOUNT,
      { vehicle: 'both', date: '2026-07-18', odometer: '101300' },
      ZONE,
      NOW,
    );
    expect(vehicleId).toBe(3);
    // 18 July 00:00 to now is 60 h of the open window's 84 h so far: 5,000 × 60/84 = 3,571.4 km
    let d = await due();
    expect(d.BOTH).toMatchObject({
      status: 'ok',
      last_service_day: '2026-07-18',
      last_service_odometer_km: 101300,
      km_since_service: 3571.4,
      km_remaining: 16428.6,
      next_service_day: '2027-07-18',
    });
    writeFileSync(fx.planPath, JSON.stringify({ ...PLAN, warning: { km: 500, days: 3 } }));
    expect(await loadServicePlanFile(fx.con, ACCOUNT, { servicePlanFile: fx.planPath }, ZONE, NOW)).toBe(
      'loaded',
    );
    d = await due();
    expect(d.BOTH).toMatchObject({ status: 'ok', last_service_day: '2026-07-18' });
    // the new warning: 5 days to the date is no longer within 3
    expect(d.MONTHS).toMatchObject({ status: 'ok', days_remaining: 5 });
  });

  it("takes a class's interval over the fleet's (the class of the prices file), a vehicle's over both", async () => {
    const prices = join(fx.dir, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({
        defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
        vehicles: [
          { vehicle_id: 4, vehicle_class: 'heavy' },
          { vehicle_id: 1, vehicle_class: 'heavy' },
        ],
      }),
    );
    await loadPricesFile(fx.con, ACCOUNT, { pricesFile: prices }, NOW);
    writeFileSync(
      fx.planPath,
      JSON.stringify({ ...PLAN, intervals: [...PLAN.intervals, { vehicle_class: 'heavy', every_km: 5000 }] }),
    );
    await loadServicePlanFile(fx.con, ACCOUNT, { servicePlanFile: fx.planPath }, ZONE, NOW);
    const d = await due();
    // RESET (heavy): 5,000 − 4,700 = 300 km to go, inside the 1,000 km warning; no months in its interval
    expect(d.RESET).toMatchObject({
      interval_scope: 'class',
      every_km: 5000,
      every_months: null,
      km_remaining: 300,
      status: 'due',
      reason: '300 km to go',
    });
    expect(d.KM).toMatchObject({ interval_scope: 'vehicle', every_km: 15000 }); // its own, though heavy
    expect(d.NEW).toMatchObject({ interval_scope: 'fleet', every_km: 20000 }); // light: the fleet's
  });

  it('refuses a bad `service done` naming every problem, and records nothing', async () => {
    const err = await recordServiceDone(
      fx.con,
      ACCOUNT,
      { vehicle: 'NOPE', date: '2026-07-21', odometer: '-5' },
      ZONE,
      NOW,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_USAGE' });
    const msg = (err as Error).message;
    expect(msg).toContain('--vehicle: unknown vehicle "NOPE"');
    expect(msg).toContain('--date 2026-07-21 is after today (2026-07-20)');
    expect(msg).toContain('--odometer "-5" must be the reading in km');
    const below = await recordServiceDone(
      fx.con,
      ACCOUNT,
      { vehicle: '1', date: '2026-07-01', odometer: '40000' },
      ZONE,
      NOW,
    ).catch((e: unknown) => e);
    expect((below as Error).message).toContain(
      'below the 50000 km recorded at the earlier service on 2026-06-01',
    );
    expect((await due()).KM).toMatchObject({ last_service_day: '2026-06-01', km_since_service: 4900 });
  });

  it('without a plan loaded: recorded all the same, with a note that nothing counts from it', async () => {
    await fx.con.run(`DELETE FROM service_plan_source; DELETE FROM service_intervals`);
    expect(await record('BOTH', '2026-07-18', '101300')).toEqual({
      vehicleId: 3,
      notes: [
        'no service plan is loaded (FLEETSYNC_SERVICE_PLAN): nothing counts from this service, and service_due stays unknown, until one is',
      ],
    });
    expect(await cliRecords()).toEqual([{ v: 3, day: '2026-07-18', km: 101300 }]);
    expect((await due()).BOTH).toMatchObject({ status: 'unknown', last_service_day: '2026-07-18' });
    // the plan loaded again: counted from it, and no note
    expect(await loadServicePlanFile(fx.con, ACCOUNT, { servicePlanFile: fx.planPath }, ZONE, NOW)).toBe(
      'loaded',
    );
    expect((await due()).BOTH).toMatchObject({ status: 'ok', km_since_service: 3571.4 });
    expect(await record('KM', '2026-07-05', '53400')).toEqual({ vehicleId: 1, notes: [] });
  });

  // The fixture's readings (fixture.ts): KM 53,000 km on 1 July 00:00, 54,600 on 17 July 00:00,
  // 54,900 when fetched (NOW, 20 July 12:00); RESET's odometer reset on 15 June (11,400 km before,
  // 12 km after), 1,512 km on 1 July. Refused: more than 5% (at least 500 km) off those readings.
  const record = (vehicle: string, date: string, odometer: string, force = false) =>
    recordServiceDone(fx.con, ACCOUNT, { vehicle, date, odometer, force }, ZONE, NOW).catch(
      (e: unknown) => e as Error & { code: string; details?: Record<string, unknown> },
    );
  const cliRecords = async () =>
    (
      await fx.con.runAndReadAll(
        "SELECT vehicle_id::INTEGER AS v, service_day::VARCHAR AS day, odometer_km AS km FROM service_records WHERE source = 'cli' ORDER BY recorded_at",
      )
    ).getRowObjectsJS();

  it('refuses a reading far from the synced odometer around the day, naming the known reading; force records it and says so', async () => {
    const typo = await record('KM', '2026-07-05', '12345');
    expect(typo).toMatchObject({ code: 'E_USAGE', details: { forcible: true } });
    expect((typo as Error).message).toContain(
      '--odometer 12345 is far below the 53,000 km its synced odometer read at 2026-07-01 00:00, before 2026-07-05',
    );
    expect((typo as Error).message).toContain('`service done --force`');
    const digit = await record('KM', '2026-07-05', '540000');
    expect((digit as Error).message).toContain(
      '--odometer 540000 is far above the 54,600 km its synced odometer read at 2026-07-17 00:00, after 2026-07-05',
    );
    // today: nothing synced after the day (the reading at 12:00 is inside it); 54,600 km on 17 July
    // and at most 2,000 km a day for the 4 days to midnight + 2,730 km (5%) = 65,330 km
    const today = await record('KM', '2026-07-20', '65400');
    expect((today as Error).message).toContain(
      '--odometer 65400 is far above what the vehicle can have reached by the end of 2026-07-20: the 54,600 km its synced odometer read at 2026-07-17 00:00, and no vehicle drives more than 2,000 km a day',
    );
    // after the reset: the new odometer's 1,512 km on 1 July, not the old one's 11,400
    const old = await record('RESET', '2026-06-20', '11500');
    expect((old as Error).message).toContain(
      'far above the 1,512 km its synced odometer read at 2026-07-01 00:00',
    );
    // a bad day and a far reading: the bad day is no matter of force
    expect(await record('KM', '2026-07-21', '12345')).toMatchObject({ details: { forcible: false } });
    expect(await cliRecords()).toEqual([]);

    // within the readings (and their slack): recorded without a note
    expect(await record('KM', '2026-07-05', '53400')).toEqual({ vehicleId: 1, notes: [] });
    expect(await record('KM', '2026-07-20', '65300')).toEqual({ vehicleId: 1, notes: [] });
    // the reset's own day: either odometer may be the one read, nothing to compare with
    expect(await record('RESET', '2026-06-15', '11450')).toEqual({ vehicleId: 4, notes: [] });
    // forced: recorded, with what it was recorded over
    expect(await record('KM', '2026-07-06', '12345', true)).toEqual({
      vehicleId: 1,
      notes: [
        'recorded with force although the reading 12345 is below the 53400 km recorded at the earlier service on 2026-07-05',
        'recorded with force although the reading 12345 is far below the 53,000 km its synced odometer read at 2026-07-01 00:00, before 2026-07-06',
      ],
    });
    expect(await cliRecords()).toEqual([
      { v: 1, day: '2026-07-05', km: 53400 },
      { v: 1, day: '2026-07-20', km: 65300 },
      { v: 4, day: '2026-06-15', km: 11450 },
      { v: 1, day: '2026-07-06', km: 12345 },
    ]);
  });
});
