/**
 * Driver scorecards and fuel efficiency (issue 27) on hand-worked fixtures: every expected number
 * below is worked out by hand from the rows inserted here and the formulas of docs/reports.md
 * (score = max(0, 100 − Σ weight × events per 100 km), default weights braking 5, acceleration 3,
 * cornering 3, speeding 2, speeding minutes 1; L/100 km = counter litres ÷ odometer km of the
 * windows counted for both; outlier above the 3-month baseline by more than 15 %). Zone UTC, so
 * a local month is a calendar month of UTC.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { rebuildFacts } from '../../src/store/facts.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { DEFAULT_SCORE_WEIGHTS } from '../../src/defaults.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

const ZONE = 'UTC';
const T = (iso: string) => Date.parse(`${iso}T00:00:00Z`);
const NOW = Date.parse('2026-06-02T12:00:00Z');
const SCORES = 'scores';
const FUEL = 'fuel';
const RESET = 'reset';
const GAPS = 'gaps';
const SPLIT = 'split';

let dir: string;
let db: Database;
let con: DuckDBConnection;

const vehicle = (account: string, vehicle_id: number, extra: Row = {}) => ({
  account,
  vehicle_id,
  registration: `V${vehicle_id}`,
  description: 'Ops',
  fuel_canbus_consumed: true,
  fuel_canbus_level: false,
  fuel_analog_level: false,
  electric_battery: false,
  electric_charging: false,
  synced_at: NOW,
  ...extra,
});

const led = (account: string, stream: string, scope: string, from: string, to: string) =>
  ledgerRow(account, stream, scope, T(from), T(to), NOW);

let tripNo = 0;
/** A trip of `km` on `day` with events [braking, acceleration, cornering, speeding, speeding seconds]. */
const trip = (
  account: string,
  vehicle_id: number,
  driver_id: string | null,
  day: string,
  km: number,
  ev: readonly (number | null)[] = [0, 0, 0, 0, 0],
) => ({
  account,
  trip_id: `t${++tripNo}`,
  vehicle_id,
  registration: `V${vehicle_id}`,
  start_time: T(day) + 3_600_000,
  end_time: T(day) + 7_200_000,
  trip_distance_m: km * 1000,
  driver_id,
  harsh_braking_events: ev[0],
  harsh_acceleration_events: ev[1],
  harsh_cornering_events: ev[2],
  road_speeding_events: ev[3],
  road_speeding_duration_seconds: ev[4],
});

const odo = (vehicle_id: number, from: string, to: string, km: number, reset = false) => ({
  account: FUEL,
  vehicle_id,
  window_start: T(from),
  window_end: T(to),
  distance_m: km * 1000,
  odometer_reset: reset,
  terminal_has_changed: false,
});
const fuel = (vehicle_id: number, from: string, to: string, start: number, litres: number) => ({
  account: FUEL,
  vehicle_id,
  window_start: T(from),
  window_end: T(to),
  counter_start_l: start,
  counter_end_l: start + litres,
  fuel_consumed_l: litres,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-scores-'));
  db = await openDatabase(join(dir, 'fleet.duckdb'));
  con = await db.connect();
  for (const account of [SCORES, FUEL])
    await appendRows(con, 'accounts', [{ account, base_url: 'http://sim', timezone: ZONE, updated_at: NOW }]);

  // Scores: trips synced for April and May 2026 (not March, not June).
  await appendRows(con, 'vehicles', [vehicle(SCORES, 1)]);
  await appendRows(
    con,
    'drivers',
    [
      ['da', 'Ann'],
      ['db', 'Bo'],
      ['dc', 'Cy'],
      ['dd', 'Di'],
      ['de', 'Ed'],
    ].map(([driver_id, first_name]) => ({
      account: SCORES,
      driver_id,
      first_name,
      last_name: 'X',
      groups: '[]',
      synced_at: NOW,
    })),
  );
  await appendRows(con, 'ledger', [
    // February only in part (1–14 Feb: 14 of its 28 days), for the coverage columns
    led(SCORES, 'trips', '*', '2026-02-01', '2026-02-15'),
    led(SCORES, 'trips', '*', '2026-04-01', '2026-05-01'),
    led(SCORES, 'trips', '*', '2026-05-01', '2026-06-01'),
  ]);
  await appendRows(con, 'trips', [
    // April: Ann 100 km, 2 braking → 100 − 5×2 = 90; Bo 100 km, 10 braking → 100 − 50 = 50
    trip(SCORES, 1, 'da', '2026-04-10', 100, [2, 0, 0, 0, 0]),
    trip(SCORES, 1, 'db', '2026-04-11', 100, [10, 0, 0, 0, 0]),
    // May: Ann 200 km: 5×4 + 3×2 + 2×2 + 1×2 min = 32 → 16 per 100 km → 84 (change −6)
    trip(SCORES, 1, 'da', '2026-05-03', 100, [3, 1, 0, 1, 60]),
    trip(SCORES, 1, 'da', '2026-05-04', 100, [1, 1, 0, 1, 60]),
    // Bo 150 km: 15 + 9 + 9 + 6 + 3 = 42 → 28 per 100 km → 72 (change +22)
    trip(SCORES, 1, 'db', '2026-05-05', 150, [3, 3, 3, 3, 180]),
    // Cy 50 km, no events: 100, but under 100 km: not ranked
    trip(SCORES, 1, 'dc', '2026-05-06', 50),
    // Di 120 km, braking unknown: score unknown, not ranked
    trip(SCORES, 1, 'dd', '2026-05-07', 120, [null, 0, 0, 0, 0]),
    // Ed 100 km, 30 braking: 100 − 150 → floored at 0, ranked last
    trip(SCORES, 1, 'de', '2026-05-08', 100, [30, 0, 0, 0, 0]),
    // no driver: 80 km, 10 braking: 100 − 50/0.8 = 37.5, not ranked
    trip(SCORES, 1, null, '2026-05-09', 80, [10, 0, 0, 0, 0]),
  ]);

  // Fuel efficiency: vans 1, 2, 3 and vehicle 4 without a class; whole months in UTC.
  await appendRows(con, 'vehicles', [
    vehicle(FUEL, 1, { vehicle_class: 'van' }),
    vehicle(FUEL, 2, { vehicle_class: 'van' }),
    vehicle(FUEL, 3, { vehicle_class: 'van' }),
    vehicle(FUEL, 4),
  ]);
  const months = ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01'];
  await appendRows(con, 'odometer_windows', [
    // vehicle 1: 10.0 L/100 km January to March, 12.0 in April (20 % above: an outlier)
    ...[0, 1, 2, 3].map((i) => odo(1, months[i]!, months[i + 1]!, 1000)),
    // vehicle 2: 10.0 then 11.0 (10 % above: not an outlier); April's fuel comes in two windows
    ...[0, 1, 2, 3].map((i) => odo(2, months[i]!, months[i + 1]!, i < 3 ? 2000 : 1000)),
    // vehicle 3: February odometer without a fuel window; March 9.0; April with a reset inside
    odo(3, '2026-02-01', '2026-03-01', 800),
    odo(3, '2026-03-01', '2026-04-01', 1000),
    odo(3, '2026-04-01', '2026-04-10', 300),
    odo(3, '2026-04-10', '2026-04-11', 999_000, true),
    odo(3, '2026-04-11', '2026-05-01', 500),
    // vehicle 4: April only, 8.0
    odo(4, '2026-04-01', '2026-05-01', 500),
  ]);
  await appendRows(con, 'fuel_consumed', [
    ...[0, 1, 2, 3].map((i) => fuel(1, months[i]!, months[i + 1]!, 1000 + 100 * i, i < 3 ? 100 : 120)),
    ...[0, 1, 2].map((i) => fuel(2, months[i]!, months[i + 1]!, 5000 + 200 * i, 200)),
    fuel(2, '2026-04-01', '2026-04-15', 5600, 50),
    fuel(2, '2026-04-15', '2026-05-01', 5650, 60),
    fuel(3, '2026-03-01', '2026-04-01', 300, 90),
    fuel(3, '2026-04-01', '2026-05-01', 390, 80),
    fuel(4, '2026-04-01', '2026-05-01', 10, 40),
  ]);
  await appendRows(con, 'drivers', [
    { account: FUEL, driver_id: 'da', first_name: 'Ann', last_name: 'X', groups: '[]', synced_at: NOW },
    { account: FUEL, driver_id: 'db', first_name: 'Bo', last_name: 'X', groups: '[]', synced_at: NOW },
  ]);
  // April's ledger: the trips, vehicles 1 and 2 (odometer and counter) and vehicle 3's odometer
  // the whole month; vehicle 3's counter only 1–9 April (the window ends at the start of the 10th)
  await appendRows(con, 'ledger', [
    led(FUEL, 'trips', '*', '2026-04-01', '2026-05-01'),
    ...[1, 2, 3].map((v) => led(FUEL, 'odometer', String(v), '2026-04-01', '2026-05-01')),
    ...[1, 2].map((v) => led(FUEL, 'fuel_consumed', String(v), '2026-04-01', '2026-05-01')),
    led(FUEL, 'fuel_consumed', '3', '2026-04-01', '2026-04-10'),
  ]);
  await appendRows(con, 'trips', [
    trip(FUEL, 1, 'da', '2026-04-03', 600),
    trip(FUEL, 1, 'db', '2026-04-20', 400),
    trip(FUEL, 2, 'da', '2026-04-05', 300),
    trip(FUEL, 2, null, '2026-04-25', 200),
    trip(FUEL, 3, 'db', '2026-04-12', 700), // in a block with a reset: carries nothing
  ]);

  // The demo's reset at a month's end (issue 27 item 3), account RESET: vehicle 5 with monthly
  // counter windows and an odometer reset on 27 Feb that splits February's odometer into days,
  // vehicle 6 with a counter window from 15 Jan to 15 Feb that chains January into February.
  const r = <T extends Row>(row: T) => ({ ...row, account: RESET });
  await appendRows(con, 'vehicles', [vehicle(RESET, 5), vehicle(RESET, 6)]);
  await appendRows(
    con,
    'odometer_windows',
    [
      odo(5, '2026-01-01', '2026-02-01', 1000),
      odo(5, '2026-02-01', '2026-02-20', 600),
      odo(5, '2026-02-20', '2026-02-27', 200),
      odo(5, '2026-02-27', '2026-02-28', 999_000, true),
      odo(5, '2026-02-28', '2026-03-01', 50),
      odo(5, '2026-03-01', '2026-04-01', 1200),
      odo(5, '2026-04-01', '2026-04-20', 900),
      odo(5, '2026-04-20', '2026-04-25', 100),
      odo(6, '2026-01-15', '2026-02-01', 300),
      odo(6, '2026-02-01', '2026-02-15', 200),
    ].map(r),
  );
  await appendRows(
    con,
    'fuel_consumed',
    [
      fuel(5, '2026-01-01', '2026-02-01', 1000, 100),
      fuel(5, '2026-02-01', '2026-03-01', 1100, 90),
      fuel(5, '2026-03-01', '2026-04-01', 1190, 132),
      fuel(5, '2026-04-01', '2026-04-20', 1322, 99),
      fuel(5, '2026-04-20', '2026-04-25', 1421, 10),
      fuel(6, '2026-01-15', '2026-02-15', 50, 40),
    ].map(r),
  );
  await appendRows(con, 'drivers', [
    { account: RESET, driver_id: 'da', first_name: 'Ann', last_name: 'X', groups: '[]', synced_at: NOW },
    { account: RESET, driver_id: 'db', first_name: 'Bo', last_name: 'X', groups: '[]', synced_at: NOW },
  ]);
  await appendRows(con, 'trips', [
    trip(RESET, 6, 'da', '2026-01-20', 300),
    trip(RESET, 6, 'db', '2026-02-05', 200), // in vehicle 6's block of January
    trip(RESET, 5, 'da', '2026-02-10', 100), // in the block with the reset: carries nothing
    trip(RESET, 5, 'da', '2026-03-10', 500),
    trip(RESET, 5, 'da', '2026-04-05', 450),
    trip(RESET, 5, 'db', '2026-04-10', 450),
    trip(RESET, 5, 'db', '2026-04-21', 80), // 120 km of trips in a block of 100 km
    trip(RESET, 5, 'da', '2026-04-22', 40),
  ]);

  // The coverage of a driver-month with gaps that overlap (account GAPS): Cy drove vehicles 7 and
  // 8 in April (each 100 L over 1,000 km, a 500 km trip in each). The trips are settled 1–20 April;
  // vehicle 7's counter misses the 10th and 26–30 April, vehicle 8's odometer the 10th.
  const g = <T extends Row>(row: T) => ({ ...row, account: GAPS });
  await appendRows(con, 'vehicles', [vehicle(GAPS, 7), vehicle(GAPS, 8, { description: 'Sales' })]);
  await appendRows(
    con,
    'odometer_windows',
    [7, 8].map((v) => g(odo(v, '2026-04-01', '2026-05-01', 1000))),
  );
  await appendRows(
    con,
    'fuel_consumed',
    [7, 8].map((v) => g(fuel(v, '2026-04-01', '2026-05-01', 0, 100))),
  );
  await appendRows(con, 'ledger', [
    led(GAPS, 'trips', '*', '2026-04-01', '2026-04-21'),
    led(GAPS, 'odometer', '7', '2026-04-01', '2026-05-01'),
    led(GAPS, 'fuel_consumed', '7', '2026-04-01', '2026-04-10'),
    led(GAPS, 'fuel_consumed', '7', '2026-04-11', '2026-04-26'),
    led(GAPS, 'odometer', '8', '2026-04-01', '2026-04-10'),
    led(GAPS, 'odometer', '8', '2026-04-11', '2026-05-01'),
    led(GAPS, 'fuel_consumed', '8', '2026-04-01', '2026-05-01'),
  ]);
  await appendRows(con, 'trips', [
    trip(GAPS, 7, 'dc', '2026-04-03', 500),
    trip(GAPS, 8, 'dc', '2026-04-04', 500),
  ]);

  // A block boundary inside a day (account SPLIT): vehicle 9's odometer and counter both change
  // windows at 12:00 on 10 April (as around a tracker change), 500 km / 50 L before (10.0 L/100
  // km) and 1,000 km / 80 L after (8.0), so the trips of the 10th fall in two blocks by their time.
  const noon = T('2026-04-10') + 12 * 3_600_000;
  const at = <T extends Row>(row: T, hour: number) => ({
    ...row,
    start_time: T('2026-04-10') + hour * 3_600_000,
    end_time: T('2026-04-10') + (hour + 1) * 3_600_000,
  });
  await appendRows(con, 'vehicles', [vehicle(SPLIT, 9)]);
  await appendRows(con, 'odometer_windows', [
    { ...odo(9, '2026-04-01', '2026-04-01', 500), account: SPLIT, window_end: noon },
    { ...odo(9, '2026-04-01', '2026-05-01', 1000), account: SPLIT, window_start: noon },
  ]);
  await appendRows(con, 'fuel_consumed', [
    { ...fuel(9, '2026-04-01', '2026-04-01', 100, 50), account: SPLIT, window_end: noon },
    { ...fuel(9, '2026-04-01', '2026-05-01', 150, 80), account: SPLIT, window_start: noon },
  ]);
  await appendRows(con, 'trips', [
    trip(SPLIT, 9, 'da', '2026-04-05', 100),
    at(trip(SPLIT, 9, 'da', '2026-04-10', 100), 1),
    at(trip(SPLIT, 9, 'da', '2026-04-10', 200), 14),
    at(trip(SPLIT, 9, 'db', '2026-04-10', 100), 15),
    trip(SPLIT, 9, 'db', '2026-04-20', 300),
  ]);
});
afterAll(() => {
  con?.closeSync();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(
  account: string,
  name: string,
  raw: Record<string, string>,
  extra: Partial<ReportScope> = {},
) {
  const scope: ReportScope = { account, zone: ZONE, nowMs: NOW, ...extra };
  // rows written by hand here: the facts and coverage the sync keeps at commit, computed first
  await rebuildFacts(con, scope.account, scope.zone);
  const def = requireReport(name);
  return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
}

describe('driver_scores', () => {
  it('scores, ranks and changes from the documented formula', async () => {
    const rows = await run(SCORES, 'driver_scores', { month: '2026-05' });
    const by = (id: string | null) => rows.find((r) => r.driver_id === id)!;
    expect(
      ['da', 'db', 'de', 'dc', 'dd', null].map((id) => {
        const r = by(id);
        return [id, r.distance_km, r.score, r.rank, r.not_ranked, r.score_change];
      }),
    ).toEqual([
      ['da', 200, 84, 1, null, -6],
      ['db', 150, 72, 2, null, 22],
      ['de', 100, 0, 3, null, null],
      ['dc', 50, 100, null, 'below_min_km', null],
      ['dd', 120, null, null, 'unknown_counts', null],
      [null, 80, 37.5, null, 'no_driver', null],
    ]);
    expect(by(null).driver_name).toBe('no driver recorded');
    expect(rows.every((r) => r.ranked_drivers === 3)).toBe(true);
    // the rates per 100 km and the unknown count
    expect(by('da')).toMatchObject({
      trips: 2,
      harsh_braking_events: 4,
      harsh_braking_per_100km: 2,
      harsh_acceleration_per_100km: 1,
      harsh_cornering_per_100km: 0,
      speeding_events: 2,
      speeding_per_100km: 1,
      speeding_min: 2,
      speeding_min_per_100km: 1,
      trips_without_counts: 0,
    });
    expect(by('dd')).toMatchObject({
      harsh_braking_events: null,
      harsh_acceleration_events: 0,
      trips_without_counts: 1,
    });
  });

  it('ranks April from its own month, and a month never synced is blank, not 0', async () => {
    const rows = await run(SCORES, 'driver_scores', { from: '2026-03-01', to: '2026-04-30' });
    const apr = rows.filter((r) => r.period === '2026-04' && r.rank !== null);
    expect(apr.map((r) => [r.driver_id, r.score, r.rank])).toEqual([
      ['da', 90, 1],
      ['db', 50, 2],
    ]);
    const mar = rows.filter((r) => r.period === '2026-03');
    expect(mar.length).toBeGreaterThan(0);
    for (const r of mar)
      expect([r.distance_km, r.trips, r.score, r.not_ranked]).toEqual([null, null, null, 'not_synced']);
    // a driver without trips in a synced month: 0 km, no score (no distance, no rate)
    const edApril = rows.find((r) => r.period === '2026-04' && r.driver_id === 'de')!;
    expect([edApril.distance_km, edApril.score, edApril.harsh_braking_per_100km]).toEqual([0, null, null]);
    // coverage: March no trips window at all, April's every day settled (NOW is 2 June)
    for (const r of mar) expect([r.coverage, r.covered_share]).toEqual(['not_synced', 0]);
    for (const r of rows.filter((x) => x.period === '2026-04'))
      expect([r.coverage, r.covered_share]).toEqual(['complete', 1]);
  });

  it('coverage: a month synced in part is partial, its share the settled days of its days', async () => {
    const rows = await run(SCORES, 'driver_scores', { month: '2026-02' });
    // six rows (five drivers and "no driver recorded"), each 14 of February's 28 days: 0.5; the
    // month's trips were pulled, so its figures are known: no trip, 0 km
    expect(rows.map((r) => [r.driver_id, r.distance_km, r.coverage, r.covered_share])).toEqual([
      ...['da', 'db', 'dc', 'dd', 'de'].map((id) => [id, 0, 'partial', 0.5]),
      [null, 0, 'partial', 0.5],
    ]);
  });

  it('takes its weights and minimum from the configuration', async () => {
    const scoring = {
      scoreWeights: { ...DEFAULT_SCORE_WEIGHTS, braking: 1 },
      scoreMinKm: 40,
      fuelOutlierPct: 15,
    };
    const rows = await run(SCORES, 'driver_scores', { month: '2026-05' }, { scoring });
    const by = (id: string) => rows.find((r) => r.driver_id === id)!;
    // Ann: 1×4 + 6 + 4 + 2 = 16 → 8 per 100 km → 92; Cy now ranked (50 km ≥ 40) at 100
    expect([by('da').score, by('dc').score, by('dc').rank, by('da').rank]).toEqual([92, 100, 1, 2]);
  });
});

describe('fuel_efficiency', () => {
  it('L/100 km from the windows counted for both, the baseline and the outlier rule', async () => {
    const rows = await run(FUEL, 'fuel_efficiency', { month: '2026-04' });
    expect(
      rows.map((r) => [
        r.vehicle_id,
        r.counted_km,
        r.counted_l,
        r.l_per_100km,
        r.baseline_l_per_100km,
        r.baseline_months,
        r.outlier,
        r.left_out_periods,
      ]),
    ).toEqual([
      [1, 1000, 120, 12, 10, 3, true, 0],
      [2, 1000, 110, 11, 10, 3, false, 0],
      [3, null, null, null, 9, 1, null, 1],
      [4, 500, 40, 8, null, 0, null, 0],
    ]);
    expect(rows.map((r) => [r.above_baseline, r.class_l_per_100km, r.class_vehicles, r.vs_class])).toEqual([
      [0.2, 11.5, 2, 0.0435],
      [0.1, 11.5, 2, -0.0435],
      [null, 11.5, 2, null],
      [null, null, null, null],
    ]);
  });

  it('a month with an odometer window and no fuel window is unknown, not 0', async () => {
    const rows = await run(FUEL, 'fuel_efficiency', { month: '2026-02', vehicle: '3' });
    expect(rows.map((r) => [r.counted_km, r.l_per_100km, r.left_out_periods])).toEqual([[null, null, 1]]);
  });

  it('the tolerance comes from the configuration', async () => {
    const scoring = { scoreWeights: DEFAULT_SCORE_WEIGHTS, scoreMinKm: 100, fuelOutlierPct: 5 };
    const rows = await run(FUEL, 'fuel_efficiency', { month: '2026-04' }, { scoring });
    expect(rows.map((r) => r.outlier)).toEqual([true, true, null, null]);
  });

  it('per driver: the litres of a block shared by trip distance', async () => {
    const rows = await run(FUEL, 'fuel_efficiency_drivers', { month: '2026-04' });
    // Ann: 600/1000 of 120 L + 300/1000 of 110 L = 72 + 33 = 105 L over 900 km; Bo 48 L over 400 km;
    // no driver 22 L over 200 km; Bo's trip in vehicle 3's block with a reset carries nothing
    expect(rows.map((r) => [r.driver_id, r.trips, r.trip_km, r.carried_l, r.l_per_100km])).toEqual([
      ['da', 2, 900, 105, 11.67],
      ['db', 1, 400, 48, 12],
      [null, 1, 200, 22, 11],
    ]);
    // coverage: Ann drove vehicles 1 and 2 (odometer and counter settled all April's 30 days),
    // as did the trips without a driver (vehicle 2); Bo drove 1 and 3, whose counter is settled
    // 1–9 April only: 9 / 30 = 0.3
    expect(rows.map((r) => [r.driver_id, r.coverage, r.covered_share])).toEqual([
      ['da', 'complete', 1],
      ['db', 'partial', 0.3],
      [null, 'complete', 1],
    ]);
  });

  it('per driver: a day counts once when its trips and every vehicle driven settled it', async () => {
    const rows = await run(GAPS, 'fuel_efficiency_drivers', { month: '2026-04' });
    // 30 ended days; the trips settled 20 (1–20 April), of which the 10th is a gap of both vehicles
    // (counted once); 26–30 April, vehicle 7's gap, are days the trips missed already: 19 / 30
    expect(rows.map((r) => [r.driver_id, r.trips, r.vehicles, r.carried_l, r.l_per_100km])).toEqual([
      ['dc', 2, 2, 100, 10],
    ]);
    expect(rows.map((r) => [r.coverage, r.covered_share])).toEqual([['partial', 0.6333]]);
  });

  it('per driver: the trips of a day a block ends in carry the block each starts in', async () => {
    const rows = await run(SPLIT, 'fuel_efficiency_drivers', { month: '2026-04' });
    // Ann: 5 April 100 km and 10 April 01:00 100 km at 10.0 (20 L), 10 April 14:00 200 km at 8.0
    // (16 L): 36 L over 400 km. Bo: 10 April 15:00 100 km and 20 April 300 km at 8.0: 32 L
    expect(rows.map((r) => [r.driver_id, r.trips, r.trip_km, r.carried_l, r.l_per_100km])).toEqual([
      ['da', 3, 400, 36, 9],
      ['db', 2, 400, 32, 8],
    ]);
  });

  it('drivers: the trips of the vehicles selected only', async () => {
    const april = { month: '2026-04' };
    const cy = async (sel: Record<string, string>) =>
      (await run(GAPS, 'drivers', { ...april, ...sel }))
        .filter((r) => r.driver_id === 'dc')
        .map((r) => [r.distance_km, r.trips]);
    // Cy's 500 km trips in vehicle 7 (Ops) and vehicle 8 (Sales)
    expect(await cy({})).toEqual([[1000, 2]]);
    expect(await cy({ vehicle: '7' })).toEqual([[500, 1]]);
    expect(await cy({ department: 'Sales' })).toEqual([[500, 1]]);
    // (Cy is no listed driver here: without a trip selected, no row)
    expect(await cy({ department: 'Nobody' })).toEqual([]);
  });

  it('drills down to the trips behind a driver figure', async () => {
    const rows = await run(FUEL, 'trips', { month: '2026-04', driver: 'da' });
    expect(rows.map((r) => r.distance_km)).toEqual([600, 300]);
    const none = await run(FUEL, 'trips', { month: '2026-04', driver: '-' });
    expect(none.map((r) => r.distance_km)).toEqual([200]);
  });
});

describe('fuel_efficiency does not change with the range asked (issue 27 item 3)', () => {
  const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04'];
  // the month alone, and inside three longer ranges that start and end in other months
  const RANGES = [
    { from: '2026-01-01', to: '2026-04-30' },
    { from: '2026-01-15', to: '2026-03-10' },
    { from: '2026-02-20', to: '2026-05-31' },
  ];
  const FIGURES = [
    'counted_km',
    'counted_l',
    'l_per_100km',
    'baseline_l_per_100km',
    'baseline_months',
    'left_out_periods',
  ];
  const DRIVER_FIGURES = ['trips', 'trip_km', 'carried_l', 'l_per_100km'];
  const pick = (row: Row, cols: string[]) => cols.map((c) => row[c]);

  it('each vehicle-month: the hand-worked figures, the same alone and inside longer ranges', async () => {
    const alone = new Map<string, unknown[]>();
    for (const month of MONTHS) {
      for (const row of await run(RESET, 'fuel_efficiency', { month })) {
        alone.set(`${String(row.vehicle_id)} ${String(row.period)}`, pick(row, FIGURES));
      }
    }
    // vehicle 5: 100 L / 1000 km; February holds the reset (left out, not blended into its
    // neighbours); March 132 L / 1200 km; April 99 + 10 L over 900 + 100 km, baseline January and
    // March (232 L / 2200 km). Vehicle 6: one block from 15 Jan to 15 Feb, 40 L / 500 km, in January.
    expect(Object.fromEntries(alone)).toEqual({
      '5 2026-01': [1000, 100, 10, null, 0, 0],
      '5 2026-02': [null, null, null, 10, 1, 1],
      '5 2026-03': [1200, 132, 11, 10, 1, 0],
      '5 2026-04': [1000, 109, 10.9, 10.55, 2, 0],
      '6 2026-01': [500, 40, 8, null, 0, 0],
      '6 2026-02': [null, null, null, 8, 1, 0],
      '6 2026-03': [null, null, null, 8, 1, 0],
      '6 2026-04': [null, null, null, 8, 1, 0],
    });
    for (const range of RANGES) {
      const rows = await run(RESET, 'fuel_efficiency', range);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const key = `${String(row.vehicle_id)} ${String(row.period)}`;
        if (!alone.has(key)) continue; // May: asked only inside the last range
        expect(pick(row, FIGURES), `${key} in ${range.from}..${range.to}`).toEqual(alone.get(key));
      }
    }
  });

  it('each driver-month: the same alone and inside longer ranges, and never more litres than the vehicles counted', async () => {
    const alone = new Map<string, unknown[]>();
    const vehicleLitres = new Map<string, number>();
    for (const month of MONTHS) {
      for (const row of await run(RESET, 'fuel_efficiency_drivers', { month })) {
        alone.set(`${String(row.driver_id)} ${String(row.period)}`, pick(row, DRIVER_FIGURES));
      }
      const vehicles = await run(RESET, 'fuel_efficiency', { month });
      vehicleLitres.set(
        month,
        vehicles.reduce((sum, v) => sum + Number(v.counted_l ?? 0), 0),
      );
    }
    // January: vehicle 6's block, 40 L / 500 km: Ann 300 km 24 L, Bo 200 km 16 L. March: Ann
    // 500/1200 of 132 L. April: the trips would carry 49.5 + 49.5 + (80 + 40) × 10 ÷ 100 = 111 L of
    // the 109 L counted, so every share is scaled by 109/111: Ann (49.5 + 4) × 109/111 = 52.536 L
    // over 490 km of trips, Bo (49.5 + 8) × 109/111 = 56.464 L over 530 km; the L/100 km are
    // 53.5/490 and 57.5/530 (the blocks' own). Ann's February trip is in the block with the reset.
    expect(Object.fromEntries(alone)).toEqual({
      'da 2026-01': [1, 300, 24, 8],
      'db 2026-01': [1, 200, 16, 8],
      'da 2026-03': [1, 500, 55, 11],
      'da 2026-04': [2, 490, 52.536, 10.92],
      'db 2026-04': [2, 530, 56.464, 10.85],
    });
    const driverLitres = new Map<string, number>();
    for (const [key, figures] of alone) {
      const month = key.split(' ')[1]!;
      driverLitres.set(month, (driverLitres.get(month) ?? 0) + Number(figures[2]));
    }
    for (const [month, litres] of driverLitres) {
      expect(litres, month).toBeLessThanOrEqual(vehicleLitres.get(month)! + 0.001);
    }
    for (const range of RANGES) {
      const rows = await run(RESET, 'fuel_efficiency_drivers', range);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const key = `${String(row.driver_id)} ${String(row.period)}`;
        expect(pick(row, DRIVER_FIGURES), `${key} in ${range.from}..${range.to}`).toEqual(alone.get(key));
      }
    }
  });
});
