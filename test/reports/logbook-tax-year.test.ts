/**
 * The tax logbook on hand-worked fixtures (issue 27 item 1): for ZA, AU and NZ one vehicle drives
 * just before and just after local midnight of the tax year's first day, so a trip's tax year is
 * its local start day's (not its UTC day's). Every expected figure below is worked out by hand from
 * the rows written here, not from the code under test.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import XLSX from 'xlsx';
import { loadConfig } from '../../src/config.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type JsonRow, type ReportScope } from '../../src/reports/run.ts';
import { rebuildFacts } from '../../src/store/facts.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

const ACCOUNT = 'logbook';
const T = (iso: string) => Date.parse(iso);
const DAY = 86_400_000;

interface Case {
  country: string;
  zone: string;
  start: string; // the tax year's first day, MM-DD
  /** Local midnight starting the new tax year (2026), as an instant. */
  boundary: number;
  before: string;
  after: string;
  /** The old year's last local day and the new year's first two. */
  days: [string, string, string];
}

// ZA: SAST +02 all year; 1 March 2026 00:00 = 2026-02-28T22:00Z (the UTC day is still 28 February).
// AU: Sydney AEST +10 in July; 1 July 2026 00:00 = 2026-06-30T14:00Z.
// NZ: Auckland NZDT +13 until 5 April 2026; 1 April 2026 00:00 = 2026-03-31T11:00Z.
const CASES: Case[] = [
  {
    country: 'za',
    zone: 'Africa/Johannesburg',
    start: '03-01',
    boundary: T('2026-02-28T22:00:00Z'),
    before: '2025/26',
    after: '2026/27',
    days: ['2026-02-28', '2026-03-01', '2026-03-02'],
  },
  {
    country: 'au',
    zone: 'Australia/Sydney',
    start: '07-01',
    boundary: T('2026-06-30T14:00:00Z'),
    before: '2025/26',
    after: '2026/27',
    days: ['2026-06-30', '2026-07-01', '2026-07-02'],
  },
  {
    country: 'nz',
    zone: 'Pacific/Auckland',
    start: '04-01',
    boundary: T('2026-03-31T11:00:00Z'),
    before: '2025/26',
    after: '2026/27',
    days: ['2026-03-31', '2026-04-01', '2026-04-02'],
  },
];

const MIN = 60_000;
const trip = (id: string, s: number, minutes: number, km: number | null, extra: Partial<Row>): Row => ({
  account: ACCOUNT,
  trip_id: id,
  vehicle_id: 7,
  registration: 'LB 1',
  start_time: s,
  end_time: s + minutes * MIN,
  trip_distance_m: 99_000, // never what the logbook counts
  start_odometer_m: km === null ? null : 200_000,
  end_odometer_m: km === null ? null : 200_000 + km * 1000,
  ...extra,
});

/** The fixtures' one vehicle, LB 1 (id 7, department Sales). */
async function addVehicle(con: DuckDBConnection, syncedAt: number) {
  await appendRows(con, 'vehicles', [
    {
      account: ACCOUNT,
      vehicle_id: 7,
      registration: 'LB 1',
      description: 'Sales',
      synced_at: syncedAt,
      fuel_canbus_consumed: true,
      fuel_canbus_level: false,
      fuel_analog_level: false,
      electric_battery: false,
      electric_charging: false,
    },
  ]);
}

/**
 * One vehicle around the boundary b (local midnight of the first day of the new year):
 *  - b − 30 min: Business, 10 km (odometer 100 → 110 km)                 → old year, business
 *  - b + 10 min: Private, 5 km, no places or title (the reduced data set) → new year, private
 *  - b + 2 h:    None, 2 km                                              → new year, unclassified
 *  - b + 4 h:    Business, no odometer readings (trip_distance 99 km)     → new year, not counted
 *  - b + 1 day + 2 h: Business, 8 km on a day whose odometer window is flagged → not counted
 * Odometer windows (local days): the old year's last day 100 → 110 km (10 km); the new year's
 * first day 110 → 130 km (20 km: the trips above and the one without readings); its second day
 * flagged (a reset) and left out. The trips and odometer ledgers are done for those three days.
 */
async function fill(con: DuckDBConnection, c: Case) {
  const b = c.boundary;
  await addVehicle(con, b);
  await appendRows(con, 'trips', [
    trip('a', b - 30 * MIN, 20, null, {
      start_odometer_m: 100_000,
      end_odometer_m: 110_000,
      trip_type: 'Business',
      trip_type_known: true,
      is_private: false,
      trip_title: 'Visit client',
      start_location: 'Depot',
      end_location: 'Client',
      driver_id: 'd1',
    }),
    trip('b', b + 10 * MIN, 15, null, {
      start_odometer_m: 110_000,
      end_odometer_m: 115_000,
      trip_type: 'Private',
      trip_type_known: true,
      is_private: true,
      driver_id: 'd1',
    }),
    trip('c', b + 120 * MIN, 10, null, {
      start_odometer_m: 115_000,
      end_odometer_m: 117_000,
      trip_type: 'None',
      trip_type_known: true,
      is_private: false,
      start_location: 'Depot',
      end_location: 'Shop',
      driver_id: 'd1',
    }),
    trip('d', b + 240 * MIN, 30, null, {
      trip_type: 'Business',
      trip_type_known: true,
      is_private: false,
      trip_title: 'Site visit',
      trip_extra_notes: 'Quote',
      start_location: 'Shop',
      end_location: 'Depot',
      driver_id: 'd1',
    }),
    trip('e', b + DAY + 120 * MIN, 20, null, {
      start_odometer_m: 50_000,
      end_odometer_m: 58_000,
      trip_type: 'Business',
      trip_type_known: true,
      is_private: false,
      trip_title: 'Delivery',
      start_location: 'Depot',
      end_location: 'Client',
      driver_id: 'd1',
    }),
  ]);
  const odo = (s: number, e: number, a: number, z: number, reset = false): Row => ({
    account: ACCOUNT,
    vehicle_id: 7,
    window_start: s,
    window_end: e,
    start_odometer_m: a,
    end_odometer_m: z,
    distance_m: z - a,
    odometer_reset: reset,
    terminal_has_changed: false,
  });
  // local days of zones without a clock change near the boundary are 24 h here
  await appendRows(con, 'odometer_windows', [
    odo(b - DAY, b, 100_000, 110_000),
    odo(b, b + DAY, 110_000, 130_000),
    odo(b + DAY, b + 2 * DAY, 130_000, 58_000, true),
  ]);
  const led = (stream: string, scope: string, s: number, e: number, status: string): Row =>
    ledgerRow(ACCOUNT, stream, scope, s, e, b + 5 * DAY, {
      status,
      reason: status === 'flagged' ? 'odometer_reset' : null,
      rows: 0,
    });
  await appendRows(con, 'ledger', [
    led('trips', '*', b - DAY, b + 2 * DAY, 'done'),
    led('odometer', '7', b - DAY, b, 'done'),
    led('odometer', '7', b, b + DAY, 'done'),
    led('odometer', '7', b + DAY, b + 2 * DAY, 'flagged'),
  ]);
}

/** A report's rows over a fixture database. */
async function reportRows(
  con: DuckDBConnection,
  scope: ReportScope,
  name: string,
  raw: Record<string, string>,
): Promise<JsonRow[]> {
  // rows written by hand here: the facts and coverage the sync keeps at commit, computed first
  await rebuildFacts(con, scope.account, scope.zone);
  const def = requireReport(name);
  return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
}

describe.each(CASES)('tax logbook, $country ($zone, tax year from $start)', (c) => {
  let dir: string;
  let db: Database;
  let con: DuckDBConnection;
  let scope: ReportScope;
  const run = (name: string, raw: Record<string, string>) => reportRows(con, scope, name, raw);
  const byId = (rows: JsonRow[]) => Object.fromEntries(rows.map((r) => [String(r.trip_id), r]));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetsync-logbook-'));
    db = await openDatabase(join(dir, 'fleet.duckdb'));
    con = await db.connect();
    await fill(con, c);
    // the tax year comes from the country unless FLEETSYNC_TAX_YEAR_START says otherwise
    const taxYearStart = loadConfig({ FLEET_COUNTRY: c.country }).taxYearStart;
    expect(taxYearStart).toBe(c.start);
    scope = { account: ACCOUNT, zone: c.zone, nowMs: c.boundary + 5 * DAY, taxYearStart };
  });
  afterAll(() => {
    con.closeSync();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts each trip in the tax year of its local start day, with its class and counted km', async () => {
    const [lastOld, , secondNew] = c.days;
    const trips = byId(await run('logbook', { from: lastOld, to: secondNew }));
    expect(Object.keys(trips).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(trips.a).toMatchObject({ tax_year: c.before, trip_class: 'business', km: 10, counted_km: 10 });
    expect(trips.a!.purpose).toBe('Visit client');
    expect(trips.a!.opening_odometer_km).toBe(100);
    expect(trips.a!.closing_odometer_km).toBe(110);
    expect(trips.b).toMatchObject({ tax_year: c.after, trip_class: 'private', km: 5, counted_km: 5 });
    // what a private trip lacks is stated, not guessed
    expect(trips.b!.start_place).toBeNull();
    expect(trips.b!.purpose).toBeNull();
    expect(trips.b!.not_sent).toBe('start place, end place, purpose');
    expect(trips.c).toMatchObject({ tax_year: c.after, trip_class: 'unclassified', km: 2, counted_km: 2 });
    expect(trips.c!.class_note).toBe('the API says not classified');
    // no readings: marked, not counted, and never trip_distance's 99 km
    expect(trips.d).toMatchObject({
      trip_class: 'business',
      odometer_status: 'missing',
      km: null,
      counted_km: null,
    });
    expect(trips.d!.purpose).toBe('Site visit — Quote');
    expect(trips.d!.not_sent).toBe('opening odometer, closing odometer');
    // on a day the odometer rule leaves out (a reset): its readings shown, its km not counted
    expect(trips.e).toMatchObject({ odometer_status: 'left_out', odometer_reason: 'odometer_reset', km: 8 });
    expect(trips.e!.counted_km).toBeNull();
  });

  it('totals business, private and unclassified km apart per tax year, with the odometer at its ends', async () => {
    const [lastOld, firstNew, secondNew] = c.days;
    const years = await run('logbook_years', { from: lastOld, to: secondNew });
    expect(years.map((r) => r.tax_year)).toEqual([c.before, c.after]);
    const [old, now] = years as [JsonRow, JsonRow];
    expect(old.year_start).toBe(`2025-${c.start}`);
    expect(old.year_end).toBe(lastOld);
    expect(now.year_start).toBe(`2026-${c.start}`);
    expect(old).toMatchObject({
      trips: 1,
      business_km: 10,
      private_km: 0,
      unclassified_km: 0,
      odometer_km: 10,
      business_share: 1,
      trips_not_counted: 0,
      closing_odometer_km: 110,
      closing_odometer_day: lastOld,
    });
    // only the last day of the old year was synced: it says so
    expect(old.coverage).toBe('partial');
    expect(now).toMatchObject({
      trips: 4,
      business_km: 0,
      private_km: 5,
      unclassified_km: 2,
      unclassified_trips: 1,
      trips_not_counted: 2,
      // the first day's 20 km; the flagged second day left out
      odometer_km: 20,
      excluded_periods: 1,
      business_share: 0,
      opening_odometer_km: 110,
      opening_odometer_day: firstNew,
    });
  });

  it.runIf(c.country === 'za')(
    "the XLSX of the vehicle's tax year states vehicle, year, odometer and business share above every trip",
    async () => {
      const def = requireReport('logbook');
      const params = parseReportParams({ vehicle: '7', from: '2026-03-01', to: '2027-02-28' }, def, scope);
      const path = join(dir, 'logbook.xlsx');
      const res = await exportReport(con, def, scope, params, 'xlsx', path);
      expect(res.rows).toBe(4);
      const wb = XLSX.read(readFileSync(path), { type: 'buffer' });
      const ws = wb.Sheets.Report!;
      const about = Object.fromEntries(
        (XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][]).map((r) => [r[0], r[1]]),
      );
      // the one flagged odometer day of the year, as the sheet's own count says
      expect(about['Windows left out']).toBe('1 (odometer reset: 1, 24 h)');
      expect(about['Above the table']).toMatch(/^Tax logbook: every trip from 2026-03-01/);
      const colA = (XLSX.utils.sheet_to_json(ws, { header: 1, blankrows: true }) as unknown[][]).map(
        (r) => r[0],
      );
      const head = colA.indexOf('Trip ID');
      expect(colA.slice(0, head)).toEqual([
        "Tax logbook: every trip from 2026-03-01 to 2027-02-28 (local time in Africa/Johannesburg), with the totals of each vehicle's tax year",
        undefined,
        'Vehicle: LB 1 (vehicle id 7, Sales)',
        // 2 of the year's 365 days have ended and were synced by "now" (5 days in): 2 of 5 days
        'Tax year: 2026/27, 2026-03-01 to 2027-02-28; coverage: not every day of the year synced (40.0 % of its days so far)',
        'Opening odometer: 110.0 km, read on 2026-03-01',
        // the last window of the year is the flagged one: its end reading, after the reset
        'Closing odometer: 58.0 km, read on 2026-03-02',
        'Business: 0.0 km; private: 5.0 km; unclassified: 2.0 km (1 trip, not counted as business); distance by odometer: 20.0 km',
        'Business share: 0.0 % (business km over the distance by odometer)',
        'Trips whose km are not counted (odometer reading missing, went down, or a reset or tracker change that day): 2 of 4',
        'Odometer reset or tracker changed in the year (1 odometer window left out): closing − opening odometer is not the distance driven',
        undefined,
      ]);
      // every trip of the year under the header
      expect(colA.slice(head + 1, head + 5)).toEqual(['b', 'c', 'd', 'e']);
    },
  );

  it('a year never synced is blank, never 0', async () => {
    const years = await run('logbook_years', { from: '2024-08-01', to: '2024-08-01' });
    expect(years).toHaveLength(1);
    expect(years[0]).toMatchObject({
      coverage: 'not_synced',
      business_km: null,
      private_km: null,
      trips: null,
    });
  });
});

/**
 * The statement adds up when trips cross the edges (issue 27 item 1, the user trial): ZA, one
 * vehicle, b = local midnight of 1 March 2026 (2026-02-28T22:00Z), the trips and odometer synced
 * for the local days 28 Feb, 1 and 2 March (the odometer to b + 2 days, the end of the data):
 *  - x b − 2 h:      Private, 94 → 100 km                       → 2025/26
 *  - y b − 15 min → b + 20 min: Business, 100 → 112 km (106 at midnight) → 2025/26, whole
 *  - z b + 3 h:      None, 112 → 120 km                         → 2026/27
 *  - w b + 2 days − 30 min → + 45 min: Business, 120 → 135 km (125 where the odometer data ends)
 * Odometer windows (local days): 94 → 106, 106 → 120, 120 → 125.
 * Worked by hand: 2025/26 counts x and y, 6 + 12 = 18 km, and closes at y's end, 112 km on 1 March:
 * 12 km of its window + the 6 km of y after midnight = 18 km by odometer. 2026/27 opens there (112
 * km, 1 March), counts z and w, 8 + 15 = 23 km, and closes at w's end, 135 km on 3 March: its
 * windows' 14 + 5 km, less y's 6 km, plus w's 10 km beyond the data = 23 km by odometer.
 */
describe("tax logbook: trips crossing the tax year's midnight and the end of the synced data", () => {
  const b = T('2026-02-28T22:00:00Z');
  const zone = 'Africa/Johannesburg';
  let dir: string;
  let db: Database;
  let con: DuckDBConnection;
  let scope: ReportScope;
  const run = (name: string, raw: Record<string, string>) => reportRows(con, scope, name, raw);
  const km = (a: number, z: number) => ({ start_odometer_m: a * 1000, end_odometer_m: z * 1000 });
  const typed = (t: string) => ({ trip_type: t, trip_type_known: true, is_private: t === 'Private' });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetsync-logbook-edges-'));
    db = await openDatabase(join(dir, 'fleet.duckdb'));
    con = await db.connect();
    await addVehicle(con, b);
    await appendRows(con, 'trips', [
      trip('x', b - 120 * MIN, 30, null, { ...km(94, 100), ...typed('Private') }),
      trip('y', b - 15 * MIN, 35, null, { ...km(100, 112), ...typed('Business'), trip_title: 'Night run' }),
      trip('z', b + 180 * MIN, 40, null, { ...km(112, 120), ...typed('None') }),
      trip('w', b + 2 * DAY - 30 * MIN, 75, null, {
        ...km(120, 135),
        ...typed('Business'),
        trip_title: 'Late',
      }),
    ]);
    const odo = (s: number, a: number, z: number): Row => ({
      account: ACCOUNT,
      vehicle_id: 7,
      window_start: s,
      window_end: s + DAY,
      start_odometer_m: a * 1000,
      end_odometer_m: z * 1000,
      distance_m: (z - a) * 1000,
      odometer_reset: false,
      terminal_has_changed: false,
    });
    await appendRows(con, 'odometer_windows', [
      odo(b - DAY, 94, 106),
      odo(b, 106, 120),
      odo(b + DAY, 120, 125),
    ]);
    const led = (stream: string, scope: string, s: number, e: number): Row => ({
      account: ACCOUNT,
      stream,
      scope,
      window_start: s,
      window_end: e,
      status: 'done',
      fetched_at: b + 2 * DAY,
      run_id: 'r1',
      reason: null,
      rows: 0,
      requests: 1,
    });
    await appendRows(con, 'ledger', [
      led('trips', '*', b - DAY, b + 2 * DAY),
      ...[0, 1, 2].map((i) => led('odometer', '7', b + (i - 1) * DAY, b + i * DAY)),
    ]);
    scope = { account: ACCOUNT, zone, nowMs: b + 2 * DAY + 2 * 60 * MIN, taxYearStart: '03-01' };
  });
  afterAll(() => {
    con.closeSync();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts a trip whole in the year it starts in; each year's km by class are its distance by odometer", async () => {
    const years = await run('logbook_years', { from: '2026-02-28', to: '2026-03-02' });
    expect(years).toHaveLength(2);
    expect(years[0]).toMatchObject({
      tax_year: '2025/26',
      trips: 2,
      business_km: 12,
      private_km: 6,
      unclassified_km: 0,
      odometer_km: 18,
      opening_odometer_km: 94,
      opening_odometer_day: '2026-02-28',
      opening_odometer_trip: null,
      closing_odometer_km: 112,
      closing_odometer_day: '2026-03-01',
      closing_odometer_trip: 'y',
    });
    expect(years[1]).toMatchObject({
      tax_year: '2026/27',
      trips: 2,
      business_km: 15,
      private_km: 0,
      unclassified_km: 8,
      odometer_km: 23,
      opening_odometer_km: 112,
      opening_odometer_day: '2026-03-01',
      opening_odometer_trip: 'y',
      closing_odometer_km: 135,
      closing_odometer_day: '2026-03-03',
      closing_odometer_trip: 'w',
    });
    const trips = await run('logbook', { from: '2026-02-28', to: '2026-03-02' });
    expect(trips.map((r) => [r.trip_id, r.tax_year, r.counted_km, r.odometer_status])).toEqual([
      ['x', '2025/26', 6, 'ok'],
      ['y', '2025/26', 12, 'ok'],
      ['z', '2026/27', 8, 'ok'],
      ['w', '2026/27', 15, 'ok'],
    ]);
  });

  it.each([
    [
      '2025-03-01',
      '2026-02-28',
      2,
      'Opening odometer: 94.0 km, read on 2026-02-28',
      'Closing odometer: 112.0 km, read on 2026-03-01 (the closing reading of trip y, counted in the year it starts in)',
      'Business: 12.0 km; private: 6.0 km; unclassified: 0.0 km (0 trips, not counted as business); distance by odometer: 18.0 km',
      18,
    ],
    [
      '2026-03-01',
      '2027-02-28',
      2,
      'Opening odometer: 112.0 km, read on 2026-03-01 (the closing reading of trip y, counted in the year it starts in)',
      'Closing odometer: 135.0 km, read on 2026-03-03 (the closing reading of trip w, counted in the year it starts in)',
      'Business: 15.0 km; private: 0.0 km; unclassified: 8.0 km (1 trip, not counted as business); distance by odometer: 23.0 km',
      23,
    ],
  ])(
    'the XLSX from %s to %s states what its totals row sums',
    async (from, to, n, opening, closing, classes, total) => {
      const def = requireReport('logbook');
      const params = parseReportParams({ vehicle: '7', from, to }, def, scope);
      const path = join(dir, `logbook-${from}.xlsx`);
      const res = await exportReport(con, def, scope, params, 'xlsx', path);
      expect(res.rows).toBe(n);
      const wb = XLSX.read(readFileSync(path), { type: 'buffer' });
      const rows = XLSX.utils.sheet_to_json(wb.Sheets.Report!, { header: 1, blankrows: true }) as unknown[][];
      const colA = rows.map((r) => r[0]);
      expect(colA).toContain(opening);
      expect(colA).toContain(closing);
      expect(colA).toContain(classes);
      const head = rows[colA.indexOf('Trip ID')]!;
      const totals = rows.find((r) => r[0] === 'Total')!;
      // the totals row's counted km: the statement's business + private + unclassified = its odometer km
      expect(totals[head.findIndex((x) => String(x).startsWith('Counted in totals'))]).toBe(total);
      const about = Object.fromEntries(
        (XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][]).map((r) => [r[0], r[1]]),
      );
      expect(about.Totals).toBe('the totals row sums every row; no summed column has an unknown row');
    },
  );
});

describe('FLEETSYNC_TAX_YEAR_START', () => {
  it('overrides the country and names a bad value', () => {
    expect(loadConfig({ FLEET_COUNTRY: 'za', FLEETSYNC_TAX_YEAR_START: '07-01' }).taxYearStart).toBe('07-01');
    expect(loadConfig({ FLEET_COUNTRY: 'ke' }).taxYearStart).toBe('01-01');
    expect(() => loadConfig({ FLEETSYNC_TAX_YEAR_START: '02-30' })).toThrow(/FLEETSYNC_TAX_YEAR_START/);
  });
});
