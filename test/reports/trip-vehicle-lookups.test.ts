/**
 * The trips report finds each trip's vehicle (registration, department) by position in the
 * lookups' lists (queries/reports/lookups/trip_lookups.sql): by id when the account's vehicle ids
 * lie close together (vdense), else by the ENUM of text keys. Both ways must name the same vehicle
 * a join would: the known ones with their department, an unknown id (in a gap of the ids, or
 * beyond them) with none and the registration the trip itself carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { loadSql } from '../../src/store/queries.ts';
import { appendRows } from '../../src/store/write.ts';
import { ACCOUNT, NOW, T, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };

const vehicle = (vehicle_id: number, registration: string, description: string) => ({
  account: ACCOUNT,
  synced_at: NOW,
  vehicle_id,
  registration,
  description,
  fuel_canbus_consumed: false,
  fuel_canbus_level: false,
  fuel_analog_level: false,
  electric_battery: false,
  electric_charging: false,
});
const trip = (trip_id: string, vehicle_id: number, registration: string, day: string) => ({
  account: ACCOUNT,
  trip_id,
  vehicle_id,
  registration,
  start_time: T(`${day}T02:00:00Z`),
  end_time: T(`${day}T03:00:00Z`),
  trip_distance_m: 1_000,
});

async function tripsByVehicle() {
  const def = requireReport('trips');
  const res = await runReport(
    fx.con,
    def,
    scope,
    parseReportParams({ from: '2026-04-01', to: '2026-04-30' }, def, scope),
  );
  const dense = (
    await fx.con.runAndReadAll(`SELECT getvariable('trip_lookups').vdense AS d`)
  ).getRowObjectsJS()[0]!.d;
  const by = Object.fromEntries(res.rows.map((r) => [String(r.trip_id), [r.registration, r.department]]));
  return { dense, by };
}

beforeAll(async () => {
  fx = await openFixture();
  // vehicles 1-3 come with the fixture; 5 makes a gap at 4
  await appendRows(fx.con, 'vehicles', [vehicle(5, 'ef 5', 'Five')]);
  await appendRows(fx.con, 'trips', [
    trip('gap', 4, 'gh 4', '2026-04-05'),
    trip('five', 5, 'ef 5', '2026-04-05'),
    trip('beyond', 7, 'ij 7', '2026-04-05'),
  ]);
});
afterAll(() => fx?.close());

describe('trips: each trip finds its vehicle', () => {
  const expected = {
    t1: ['ab 123 gp', 'Sales'],
    t2: ['=cmd()', '@x'],
    gap: ['gh 4', null],
    five: ['ef 5', 'Five'],
    beyond: ['ij 7', null],
  };

  it('by id when the ids lie close together', async () => {
    const { dense, by } = await tripsByVehicle();
    expect(dense).toBe(true);
    expect(by).toMatchObject(expected);
  });

  it('by the text keys when they do not (one id far from the rest)', async () => {
    await appendRows(fx.con, 'vehicles', [vehicle(900_000_001, 'far 1', 'Far')]);
    await appendRows(fx.con, 'trips', [trip('far', 900_000_001, 'far 1', '2026-04-06')]);
    const { dense, by } = await tripsByVehicle();
    expect(dense).toBe(false);
    expect(by).toMatchObject({ ...expected, far: ['far 1', 'Far'] });
  });
});

describe('trips: the lookups\u2019 lists', () => {
  // DuckDB turns a constant list back into a vector for every chunk of 2,048 rows, so a list read
  // through getvariable() per row cost ~0.4 s of CPU per 1 M exported trips at 5,000 vehicles (more
  // over longer ranges; issue 29). The lists come from the one row the trips are crossed with.
  it('are read from the one-row relation, never from getvariable() per row', () => {
    const lists = ['registration', 'department', 'driver_name', 'off', 'off_text'];
    const perRow = new RegExp(`getvariable\\('trip_lookups'\\)\\.(${lists.join('|')})\\b`);
    for (const name of ['reports/trips', 'reports/macros/trip_lookups'])
      expect(loadSql(name).replace(/--[^\n]*/g, ''), name).not.toMatch(perRow);
    expect(loadSql('reports/trips')).toMatch(/FROM trips, \(SELECT getvariable\('trip_lookups'\) AS lk\)/);
    // the lists themselves are still made there (a check that reads the right file)
    for (const l of lists) expect(loadSql('reports/lookups/trip_lookups')).toMatch(new RegExp(`\\b${l}:`));
  });
});
