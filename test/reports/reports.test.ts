import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES, getReport } from '../../src/reports/registry.ts';
import { requireReport, resolveZone, runReport, type ReportScope } from '../../src/reports/run.ts';
import {
  ACCOUNT,
  NOW,
  ZONE,
  markFleetStreamsSynced,
  openFixture,
  parseCsv,
  refreshFixtureFacts,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let scope: ReportScope;

beforeAll(async () => {
  fx = await openFixture();
  scope = { account: ACCOUNT, zone: await resolveZone(fx.con, ACCOUNT, 'UTC'), nowMs: NOW };
});
afterAll(() => fx?.close());

async function run(name: string, raw: Record<string, string> = {}) {
  // tests here write rows by hand: the facts the sync would keep, computed again first
  await refreshFixtureFacts(fx.con);
  const def = requireReport(name);
  return (await runReport(fx.con, def, scope, parseReportParams(raw, def, scope))).rows;
}

/** The fleet-wide trips and toll visits synced (markFleetStreamsSynced), for the current test only. */
async function fleetStreamsSynced() {
  await markFleetStreamsSynced(fx.con);
  onTestFinished(async () => {
    await fx.con.run(`DELETE FROM ledger WHERE account = $1 AND stream IN ('trips', 'visits')`, [ACCOUNT]);
  });
}

describe('report SQL against a hand-filled Sydney database', () => {
  it('takes the zone from the accounts table', () => {
    expect(scope.zone).toBe(ZONE);
  });

  it('runs: a run that met no 429 shows 0; one that did names its buckets; one never counted stays blank', async () => {
    await fx.con.run(
      `UPDATE runs SET http_429 = CASE run_id WHEN 'run-1' THEN '{}' ELSE '{"default":2}' END`,
    );
    onTestFinished(async () => {
      await fx.con.run('UPDATE runs SET http_429 = NULL');
    });
    const byId = Object.fromEntries((await run('runs')).map((r) => [r.run_id, r.http_429]));
    expect(byId).toEqual({ 'run-1': '0', 'run-2': '{"default":2}' });
    await fx.con.run(`UPDATE runs SET http_429 = NULL WHERE run_id = 'run-1'`);
    expect((await run('runs')).find((r) => r.run_id === 'run-1')!.http_429).toBeNull();
  });

  it('mileage: local months across the DST change, flagged windows left out and counted', async () => {
    const rows = await run('mileage', { from: '2026-03-01', to: '2026-04-30' });
    const v1 = rows.filter((r) => r.vehicle_id === 1);
    // The April window starts at 2026-03-31T13:00Z, which is 1 April in Sydney.
    expect(v1).toEqual([
      expect.objectContaining({ period: '2026-03', distance_km: 1000, excluded_periods: 0, complete: true }),
      expect.objectContaining({ period: '2026-04', distance_km: 750, excluded_periods: 1, complete: true }),
    ]);
    const v2 = rows.filter((r) => r.vehicle_id === 2);
    expect(v2).toEqual([
      expect.objectContaining({ period: '2026-03', distance_km: 42, excluded_periods: 0, complete: true }),
      // 0 km measured (the 0-distance window) + an unknown (NULL) window; one flagged; incomplete.
      expect.objectContaining({ period: '2026-04', distance_km: 0, excluded_periods: 1, complete: false }),
    ]);
    expect(v1[0]).toMatchObject({ registration: 'ab 123 gp', department: 'Sales', zone: ZONE });
  });

  it('mileage: an open month whose window is still incomplete is not complete', async () => {
    // May: one window, pulled before the month ended and still incomplete (the ledger says so);
    // the last synced instant is 1 May, so "covered up to the last synced instant" is trivially
    // true, yet the month's number will still change.
    await fx.con.run(`INSERT INTO odometer_windows (account, vehicle_id, window_start, window_end, distance_m,
        odometer_reset, terminal_has_changed)
      VALUES ('${ACCOUNT}', 1, TIMESTAMPTZ '2026-04-30 14:00:00+00', TIMESTAMPTZ '2026-05-31 14:00:00+00', 100000, false, false)`);
    await fx.con
      .run(`INSERT INTO ledger (account, stream, scope, window_start, window_end, status, fetched_at, run_id)
      VALUES ('${ACCOUNT}', 'odometer', '1', TIMESTAMPTZ '2026-04-30 14:00:00+00', TIMESTAMPTZ '2026-05-31 14:00:00+00',
        'incomplete', TIMESTAMPTZ '2026-05-02 00:00:00+00', 'run-2')`);
    try {
      expect(await run('mileage', { month: '2026-05', vehicle: '1' })).toEqual([
        expect.objectContaining({ period: '2026-05', distance_km: 100, complete: false }),
      ]);
    } finally {
      await fx.con.run(
        `DELETE FROM odometer_windows WHERE account = '${ACCOUNT}' AND window_start = TIMESTAMPTZ '2026-04-30 14:00:00+00'`,
      );
      await fx.con.run(
        `DELETE FROM ledger WHERE account = '${ACCOUNT}' AND window_start = TIMESTAMPTZ '2026-04-30 14:00:00+00'`,
      );
    }
  });

  it('mileage: month filter, vehicle filter and department filter', async () => {
    // every vehicle has a row (issue 12): vehicle 3 ('=cmd()' sorts first) has no odometer synced
    const march = await run('mileage', { month: '2026-03' });
    expect(march.map((r) => r.vehicle_id)).toEqual([3, 1, 2]);
    expect(march[0]).toMatchObject({ distance_km: null, coverage: 'not_synced', covered_share: 0 });
    expect(await run('mileage', { month: '2026-04', vehicle: '2' })).toHaveLength(1);
    const ops = await run('mileage', { month: '2026-04', department: 'Ops' });
    expect(ops.map((r) => r.vehicle_id)).toEqual([2]);
  });

  it('fuel: a counter that went down is excluded (never negative); level estimate for sensor vehicles', async () => {
    const rows = await run('fuel', { month: '2026-04' });
    expect(rows.find((r) => r.vehicle_id === 1)).toMatchObject({
      fuel_used_l: 50,
      excluded_periods: 1,
      source: 'counter',
    });
    expect(rows.find((r) => r.vehicle_id === 2)).toMatchObject({ fuel_used_l: 0, source: 'counter' });
    expect(rows.find((r) => r.vehicle_id === 3)).toMatchObject({ fuel_used_l: 20, source: 'level_estimate' });
    for (const r of rows) expect(Number(r.fuel_used_l)).toBeGreaterThanOrEqual(0);
  });

  it('excluded windows list every flagged window with reason and span', async () => {
    const rows = await run('excluded_windows', { month: '2026-04' });
    expect(rows.map((r) => [r.vehicle_id, r.stream, r.reason])).toEqual([
      [1, 'fuel_consumed', 'fuel_counter_went_down'],
      [1, 'odometer', 'odometer_reset'],
      [2, 'odometer', 'terminal_has_changed'],
    ]);
    expect(rows[1]).toMatchObject({
      window_start: '2026-04-11T00:00:00+10:00',
      window_end: '2026-04-12T00:00:00+10:00',
      span_h: 24,
      ledger_reason: 'odometer_reset',
    });
  });

  it('tolls: only is_toll geofences, local days with offsets in the zone', async () => {
    const rows = await run('tolls', { from: '2026-04-01', to: '2026-04-30' });
    expect(rows.map((r) => r.enter_time)).toEqual(['2026-04-01T00:30:00+11:00', '2026-04-05T02:30:00+11:00']);
    expect(rows[0]).toMatchObject({ local_date: '2026-04-01', utc_date: '2026-03-31', duration_s: 60 });
    expect(rows.every((r) => r.geofence_id === 'g-toll')).toBe(true);
    const march = await run('tolls', { month: '2026-03' });
    expect(march.map((r) => r.enter_time)).toEqual(['2026-03-31T23:30:00+11:00']);
  });

  it('carpool: lateness only from booking_status, including both traps', async () => {
    const rows = await run('carpool', { month: '2026-04' });
    const late = Object.fromEntries(rows.map((r) => [r.booking_id, r.is_late]));
    expect(late).toEqual({ 101: false, 102: true, 103: true, 104: false, 105: false });
    const dep = await run('carpool_departments', { month: '2026-04' });
    const sales = dep.find((r) => r.department === 'Sales')!;
    // checked out: 101, 102, 103 → 2 late of 3
    expect(sales).toMatchObject({
      bookings: 5,
      checked_out: 3,
      late_returns: 2,
      late_return_rate: 0.6667,
      approved: 4,
      declined: 1,
      no_shows: 1,
    });
    // turnaround (created → first seen approved/declined, for bookings seen pending first):
    // 101 created 24 h before its start, APPROVED seen 22 h before → 2 h; 102 created at
    // D10 - 20 h, APPROVED seen at D10 - 15 h → 5 h; median of (2, 5) = 3.5 h. 105 was first
    // seen already DECLINED: its turnaround is unknown and left out (not counted as 0).
    expect(sales.median_approval_turnaround_h).toBe(3.5);
  });

  it('carpool_departments: an unknown booking status leaves no-shows blank, a refused vehicle list leaves the pool blank', async () => {
    // 106: a copy of 101 (returned, so picked up: no no-show by the known rules) in a status this
    // version does not know — whether it is a no-show is unknown.
    await fx.con.run(
      `INSERT INTO carpool_bookings SELECT * REPLACE (106 AS booking_id,
         'BOOKING_STATUS_ON_HOLD' AS booking_status, false AS booking_status_known)
       FROM carpool_bookings WHERE account = $1 AND booking_id = 101`,
      [ACCOUNT],
    );
    try {
      const known = (await run('carpool_departments', { month: '2026-04' })).find(
        (r) => r.department === 'Sales',
      )!;
      expect(known).toMatchObject({ bookings: 6, no_shows: null, approved: 5 });
      expect(known.carpool_vehicles).toBeGreaterThan(0);
      await fx.con.run(
        `INSERT INTO endpoint_access (account, endpoint, state, since, last_probed, last_status, message, streams, ledger_streams)
         VALUES ($1, 'GET /carpool/vehicles', 'not_permitted', now(), now(), 403, 'x', 'carpool', '')`,
        [ACCOUNT],
      );
      for (const r of await run('carpool_departments', { month: '2026-04' }))
        expect(r, String(r.department)).toMatchObject({
          carpool_vehicles: null,
          available_h: null,
          utilisation: null,
        });
      // nor is whether a vehicle is in the pool: unknown, never "no"
      const vehicles = await run('vehicles');
      expect(vehicles.length).toBeGreaterThan(0);
      expect(vehicles.map((v) => v.carpool)).toEqual(vehicles.map(() => null));
    } finally {
      await fx.con.run('DELETE FROM carpool_bookings WHERE account = $1 AND booking_id = 106', [ACCOUNT]);
      await fx.con.run('DELETE FROM endpoint_access WHERE account = $1', [ACCOUNT]);
    }
  });

  it('setup health names why a driver or vehicle is incomplete', async () => {
    const rows = await run('setup_health');
    expect(rows.map((r) => [r.kind, r.id, r.reason])).toEqual([
      ['driver', 'd1', 'neither auto booking nor specific-vehicle booking allowed'],
      ['driver', 'd2', 'cannot book carpool (can_book_carpool is false)'],
      ['vehicle', '2', 'no category, no license class'],
    ]);
  });

  it('KPIs tie to the mileage, fuel and tolls reports', async () => {
    await fleetStreamsSynced();
    const [k] = await run('kpis', { month: '2026-04' });
    const sum = (rows: Record<string, unknown>[], c: string) =>
      rows.reduce((a, r) => a + (typeof r[c] === 'number' ? (r[c] as number) : 0), 0);
    expect(k!.distance_km).toBeCloseTo(sum(await run('mileage', { month: '2026-04' }), 'distance_km'), 9);
    expect(k!.fuel_used_l).toBeCloseTo(sum(await run('fuel', { month: '2026-04' }), 'fuel_used_l'), 9);
    expect(k).toMatchObject({
      distance_km: 750,
      fuel_used_l: 70,
      toll_passages: 2,
      excluded_odometer_windows: 2,
      excluded_fuel_windows: 1,
      bookings: 5,
      late_returns: 2,
      // over the 3 checked-out bookings (101, 102, 103), not the 5 booked: 2 / 3, not 2 / 5
      late_return_rate: 0.6667,
      last_run_id: 'run-2',
      zone: ZONE,
    });
    // the late-return rate is over the checked-out bookings, as the carpool departments count them
    const depts = await run('carpool_departments', { month: '2026-04' });
    expect(k!.checked_out).toBe(sum(depts, 'checked_out'));
    expect(k!.checked_out).toBeGreaterThan(0);
    expect(k!.late_return_rate).toBeCloseTo((k!.late_returns as number) / (k!.checked_out as number), 4);
    // odometer vehicle 2 has an incomplete window from 2026-04-11T14:00Z (12 April local)
    expect(k!.complete_through).toBe('2026-04-12T00:00:00+10:00');
  });

  it('kpis: a vehicle / department pair that matches no vehicle says no_vehicle, not not_synced (issue 25)', async () => {
    // vehicle 1 is in Sales; April is synced for it
    const [none] = await run('kpis', { month: '2026-04', vehicle: '1', department: 'Ops' });
    expect(none).toMatchObject({ vehicles: 0, coverage: 'no_vehicle', distance_km: null });
    const [nope] = await run('kpis', { month: '2026-04', department: 'Nope' });
    expect(nope).toMatchObject({ vehicles: 0, coverage: 'no_vehicle' });
    const [one] = await run('kpis', { month: '2026-04', vehicle: '1', department: 'Sales' });
    expect(one).toMatchObject({ vehicles: 1, distance_km: 750 });
    expect(one!.coverage).not.toBe('no_vehicle');
  });

  it("kpis: one period (issue 25): distance and fuel are the range's when its windows lie inside it, else the whole months, and say which", async () => {
    await fleetStreamsSynced();
    // vehicle 1's April: odometer and fuel windows 1–10 Apr, 11 Apr (flagged), 12–30 Apr (local)
    const [inside] = await run('kpis', { from: '2026-04-01', to: '2026-04-10', vehicle: '1' });
    expect(inside).toMatchObject({
      span_basis: 'range',
      span_from: '2026-04-01',
      span_to: '2026-04-10',
      distance_km: 500, // the 1–10 Apr window alone, not April's 750
      fuel_used_l: 20, // counter 150 → 170
      excluded_odometer_windows: 0,
      span_days: 10,
      range_days: 10,
    });
    // 1–11 Apr takes the flagged 11 Apr window too: still inside, left out and counted as such
    const [eleven] = await run('kpis', { from: '2026-04-01', to: '2026-04-11', vehicle: '1' });
    expect(eleven).toMatchObject({ span_basis: 'range', distance_km: 500, excluded_odometer_windows: 1 });
    // 5–20 Apr cuts the windows: the whole month, said so, with the month's coverage
    const [cut] = await run('kpis', { from: '2026-04-05', to: '2026-04-20', vehicle: '1' });
    expect(cut).toMatchObject({
      span_basis: 'whole_months',
      span_from: '2026-04-01',
      span_to: '2026-04-30',
      distance_km: 750,
      fuel_used_l: 50, // 20 + 30, the flagged day left out
      range_days: 16,
      span_days: 30,
    });
    // the fleet over 1–10 Apr: vehicle 2's fuel window is the whole of April, so both figures
    // are April's (one basis for distance and fuel), equal to the month's own answer
    const [fleet] = await run('kpis', { from: '2026-04-01', to: '2026-04-10' });
    const [april] = await run('kpis', { month: '2026-04' });
    expect(fleet).toMatchObject({
      span_basis: 'whole_months',
      span_from: '2026-04-01',
      span_to: '2026-04-30',
    });
    expect(fleet!.distance_km).toBe(april!.distance_km);
    expect(fleet!.fuel_used_l).toBe(april!.fuel_used_l);
    expect(fleet!.span_coverage).toBe(april!.coverage);
    expect([fleet!.span_synced_days, fleet!.span_days]).toEqual([april!.synced_days, april!.range_days]);
    // toll passages and their charges are the range's: 1 Apr 00:30 (vehicle 1) and 5 Apr (vehicle 2);
    // no prices file, so no passage has a charge: blank, never 0.00
    expect(fleet).toMatchObject({ toll_passages: 2, toll_no_tariff: 2, toll_charges_known: null });
    const [first] = await run('kpis', { from: '2026-04-01', to: '2026-04-04' });
    expect(first).toMatchObject({ toll_passages: 1, toll_no_tariff: 1 });
  });

  it('cost_departments: the vehicles without a department are a "no department" row (issue 25)', async () => {
    await fx.con.run(
      `INSERT INTO vehicles (account, vehicle_id, registration, description, fuel_canbus_consumed,
         fuel_canbus_level, fuel_analog_level, electric_battery, electric_charging, synced_at)
       VALUES ($1, 9, 'no dept 9', NULL, false, false, false, false, false, now())`,
      [ACCOUNT],
    );
    await fx.con.run(
      `INSERT INTO odometer_windows (account, vehicle_id, window_start, window_end, distance_m, odometer_reset, terminal_has_changed)
       VALUES ($1, 9, '2026-04-01T00:00:00Z', '2026-04-02T00:00:00Z', 100000, false, false)`,
      [ACCOUNT],
    );
    try {
      const rows = await run('cost_departments', { month: '2026-04' });
      expect(rows.filter((r) => r.department === null)).toEqual([]);
      // last, and its figures are vehicle 9's: 100 km
      expect(rows.at(-1)).toMatchObject({ department: 'no department', vehicles: 1, distance_km: 100 });
      // the departments add up to the fleet: 750 km of vehicles 1–3 and vehicle 9's 100
      expect(rows.reduce((a, r) => a + Number(r.distance_km ?? 0), 0)).toBeCloseTo(850, 6);
    } finally {
      await fx.con.run('DELETE FROM odometer_windows WHERE account = $1 AND vehicle_id = 9', [ACCOUNT]);
      await fx.con.run('DELETE FROM vehicles WHERE account = $1 AND vehicle_id = 9', [ACCOUNT]);
    }
  });

  it('an account never synced (no vehicle yet): kpis and trend are blank and not synced, never 0', async () => {
    await fx.con.run(
      `INSERT INTO accounts VALUES ('never-synced', 'http://example.invalid/rest', '${ZONE}', now())`,
    );
    try {
      const empty = { ...scope, account: 'never-synced' };
      const runOn = async (name: string, raw: Record<string, string>) => {
        const def = requireReport(name);
        return (await runReport(fx.con, def, empty, parseReportParams(raw, def, empty))).rows;
      };
      const [k] = await runOn('kpis', { month: '2026-04' });
      expect(k).toMatchObject({ coverage: 'not_synced', synced_days: 0, range_days: 30 });
      for (const col of ['trips', 'toll_passages', 'bookings', 'late_returns', 'checked_out', 'distance_km'])
        expect(k![col], col).toBeNull();
      const trend = await runOn('trend', { month: '2026-04', grain: 'week' });
      expect(trend.length).toBeGreaterThan(0);
      for (const r of trend)
        expect([r.coverage, r.trips, r.toll_passages]).toEqual(['not_synced', null, null]);
    } finally {
      await fx.con.run("DELETE FROM accounts WHERE account = 'never-synced'");
    }
  });

  it('coverage calendar: synced, flagged, incomplete and missing days', async () => {
    const rows = await run('coverage', { from: '2026-04-10', to: '2026-04-12' });
    const grid = rows.map((r) => `${r.vehicle_id}:${r.day}:${r.status}`);
    expect(grid).toEqual([
      '3:2026-04-10:missing',
      '3:2026-04-11:missing',
      '3:2026-04-12:missing',
      '1:2026-04-10:synced',
      '1:2026-04-11:flagged',
      '1:2026-04-12:synced',
      '2:2026-04-10:synced',
      '2:2026-04-11:flagged',
      '2:2026-04-12:incomplete',
    ]);
  });

  it("coverage calendar and kpis count the same days: the range's local days that have ended", async () => {
    // NOW is 2 May 10:00 in Sydney: of 29 Apr–2 May, 29 Apr, 30 Apr and 1 May have ended; 2 May
    // (today) is neither synced nor missing, so neither lists nor counts it
    const range = { from: '2026-04-29', to: '2026-05-02' };
    const days = [...new Set((await run('coverage', range)).map((r) => r.day))];
    expect(days).toEqual(['2026-04-29', '2026-04-30', '2026-05-01']);
    expect((await run('kpis', range))[0]!.range_days).toBe(3);
  });

  it('every registered report runs and returns exactly its registered columns', async () => {
    for (const name of REPORT_NAMES) {
      const def = getReport(name)!;
      const res = await runReport(fx.con, def, scope, parseReportParams({ month: '2026-04' }, def, scope));
      expect(res.columns, name).toEqual(def.columns.map((c) => c.name));
    }
  });
});

describe('CSV export', () => {
  it('neutralises formula-like text, keeps negative numbers, blank = unknown, 0 = zero, BOM', async () => {
    const def = requireReport('trips');
    const out = join(fx.dir, 'trips.csv');
    const res = await exportReport(
      fx.con,
      def,
      scope,
      parseReportParams({ month: '2026-04' }, def, scope),
      'csv',
      out,
    );
    expect(res.rows).toBe(2);
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, t1, t2] = parseCsv(text.slice(1));
    const col = (row: string[] | undefined, name: string) => row![header!.indexOf(name)];
    expect(col(t1, 'start_location')).toBe('\'=HYPERLINK("http://x")');
    expect(col(t1, 'end_location')).toBe('-12.5');
    expect(col(t1, 'driver_id')).toBe("'@x");
    expect(col(t1, 'start_time')).toBe('2026-04-01T11:00:00+11:00');
    expect(col(t2, 'registration')).toBe("'=cmd()");
    expect(col(t2, 'department')).toBe("'@x");
    expect(col(t2, 'start_location')).toBe("'+SUM(A1)");
    expect(col(t2, 'end_location')).toBe("'\tTabbed");
    expect(col(t2, 'start_odometer_km')).toBe('-12.5');
    expect(col(t2, 'end_odometer_km')).toBe('');
    const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'));
    expect(manifest).toMatchObject({
      report: 'trips',
      rows: 2,
      zone: ZONE,
      run_id: 'run-2',
      from: '2026-04-01',
    });
  });

  it('mileage CSV: blank for unknown distance, 0 for a measured zero, same rows as JSON', async () => {
    const def = requireReport('mileage');
    const params = parseReportParams({ from: '2026-03-01', to: '2026-04-30' }, def, scope);
    const out = join(fx.dir, 'mileage.csv');
    await exportReport(fx.con, def, scope, params, 'csv', out);
    const [header, ...rows] = parseCsv(readFileSync(out, 'utf8').slice(1));
    expect(header).toEqual(def.columns.map((c) => c.name));
    const json = (await runReport(fx.con, def, scope, params)).rows;
    // Numbers compare as numbers (COPY writes 1000.0 where JSON has 1000); blank ↔ null.
    const kinds = new Map(def.columns.map((c) => [c.name, c.kind]));
    const fromCsv = rows.map((r) =>
      Object.fromEntries(
        header!.map((h, i) => {
          const cell = r[i]!;
          const k = kinds.get(h);
          if (cell === '') return [h, null];
          if (k === 'number' || k === 'integer') return [h, Number(cell)];
          if (k === 'boolean') return [h, cell === 'true'];
          return [h, cell];
        }),
      ),
    );
    // text cells are spreadsheet-safe in CSV ('=cmd()' → "'=cmd()"), as xl_text says
    const safe = (v: unknown) => (typeof v === 'string' && /^[=+\-@]/.test(v) ? `'${v}` : v);
    expect(fromCsv).toEqual(
      json.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, safe(v)]))),
    );
    expect(fromCsv.find((r) => r.period === '2026-04' && r.vehicle_id === 2)!.distance_km).toBe(0);
    expect(fromCsv.find((r) => r.period === '2026-04' && r.vehicle_id === 3)!.distance_km).toBeNull();
  });

  it('with a side connection (ExportOptions.side) the file and the manifest are those without one; with the instance its own, the COPY on one thread', async () => {
    await refreshFixtureFacts(fx.con);
    const side = await fx.db.connect();
    onTestFinished(() => side.closeSync());
    const cases = [
      ['trips', { month: '2026-04' }, 'csv'], // totals from its own totals query
      ['trips', { month: '2026-04', driver: '@x' }, 'csv'], // totals over the statement: the side makes the lookups
      ['trips', { month: '2026-04' }, 'parquet'],
    ] as const;
    for (const [name, raw, format] of cases) {
      const def = requireReport(name);
      const params = parseReportParams(raw, def, scope);
      const [a, b] = [join(fx.dir, `alone.${format}`), join(fx.dir, `side.${format}`)];
      const alone = await exportReport(fx.con, def, scope, params, format, a);
      const beside = await exportReport(fx.con, def, scope, params, format, b, { side });
      expect(beside.rows).toBe(alone.rows);
      expect(readFileSync(b)).toEqual(readFileSync(a));
      const manifest = (p: string) => {
        const m = JSON.parse(readFileSync(`${p}.manifest.json`, 'utf8')) as Record<string, unknown>;
        delete m.file;
        return m;
      };
      expect(manifest(b)).toEqual(manifest(a));
      if (name === 'trips' && format === 'csv') {
        // the total is the file's own distance column summed (blank = unknown, left out)
        const [header, ...rows] = parseCsv(readFileSync(b, 'utf8').slice(1));
        const km = rows.map((r) => r[header!.indexOf('distance_km')]!).filter((x) => x !== '');
        const m = manifest(b) as { rows: number; totals: { distance_km: number | null } };
        expect(m.rows).toBe(rows.length);
        expect(m.totals.distance_km).toBeCloseTo(
          km.reduce((s, x) => s + Number(x), 0),
          6,
        );
      }
    }
    // with the instance to itself (ownsInstance) the streamed COPY ran at one DuckDB thread
    // (onOneThread): the instance's threads are set back, after a COPY that failed too (its
    // directory does not exist); with a side connection alone the threads are not touched
    const threads = async () =>
      (await fx.con.runAndReadAll(`SELECT current_setting('threads') AS n`)).getRowObjectsJS()[0]!.n;
    const before = await threads();
    onTestFinished(async () => {
      await fx.con.run(`SET threads = ${before}`);
    });
    await fx.con.run('SET threads = 3');
    const def = requireReport('trips');
    const params = parseReportParams({ month: '2026-04' }, def, scope);
    // the statements the export sends on its connection, in order: the COPY between the two SETs
    const sent: string[] = [];
    const recorded = new Proxy(fx.con, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (typeof args[0] === 'string') sent.push(args[0]);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    await exportReport(recorded, def, scope, params, 'csv', join(fx.dir, 'shared.csv'), { side });
    expect(sent.some((sql) => /^\s*SET threads/.test(sql))).toBe(false);
    expect(sent.some((sql) => /^\s*COPY\b/.test(sql))).toBe(true);
    sent.length = 0;
    const owns = { side, ownsInstance: true };
    await exportReport(recorded, def, scope, params, 'csv', join(fx.dir, 'again.csv'), owns);
    const one = sent.indexOf('SET threads = 1');
    const copy = sent.findIndex((sql, i) => i > one && /^\s*COPY\b/.test(sql));
    expect(one).toBeGreaterThanOrEqual(0);
    expect(copy).toBeGreaterThan(one);
    expect(sent.indexOf('SET threads = 3', copy)).toBeGreaterThan(copy);
    expect(await threads()).toBe(3n);
    await expect(
      exportReport(fx.con, def, scope, params, 'csv', join(fx.dir, 'no-such-dir', 't.csv'), owns),
    ).rejects.toThrow(/cannot write the trips report/);
    expect(await threads()).toBe(3n);
  });

  it('parquet and arrow exports write the same number of rows', async () => {
    const def = requireReport('tolls');
    const params = parseReportParams({ month: '2026-04' }, def, scope);
    const p = await exportReport(fx.con, def, scope, params, 'parquet', join(fx.dir, 't.parquet'));
    const a = await exportReport(fx.con, def, scope, params, 'arrow', join(fx.dir, 't.arrow'));
    expect([p.rows, a.rows]).toEqual([2, 2]);
    const back = (
      await fx.con.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM read_parquet('${join(fx.dir, 't.parquet')}')`,
      )
    ).getRowObjectsJS();
    expect(back[0]!.n).toBe(2);
    const { tableFromIPC } = await import('apache-arrow');
    expect(tableFromIPC(readFileSync(join(fx.dir, 't.arrow'))).numRows).toBe(2);
  });
});

describe('report parameters', () => {
  const def = getReport('mileage')!;
  const ctx = { zone: ZONE, nowMs: NOW };
  it.each([
    [{ from: '2026-02-30' }, /from: is not a calendar day/],
    [{ from: '2026-04-10', to: '2026-04-01' }, /to: 2026-04-01 is before from 2026-04-10/],
    [{ month: '2026-04', from: '2026-04-01' }, /either month or from\/to/],
    [{ from: '2000-01-01', to: '2026-01-01' }, /longer than/],
    [{ department: 'd'.repeat(201) }, /department: must be a department name of at most 200 characters/],
    [{ vehicle: '1 OR 1=1' }, /vehicle/],
    [{ evil: '1' }, /unknown parameter/],
    [{ grain: 'day' }, /not a parameter of the mileage report/],
  ])('%j is refused', (raw, re) => {
    expect(() => parseReportParams(raw, def, ctx)).toThrow(re);
  });
  it('a department that looks like SQL is only a name: bound, it matches nothing and changes nothing', async () => {
    const trips = async () =>
      Number((await fx.con.runAndReadAll('SELECT count(*) FROM trips')).getRows()[0]![0]);
    const before = await trips();
    expect(before).toBeGreaterThan(0);
    expect(await run('mileage', { month: '2026-04', department: "x'; DROP TABLE trips; --" })).toEqual([]);
    expect(await trips()).toBe(before);
  });
  it('defaults to the current local month up to today', () => {
    expect(parseReportParams({}, def, ctx)).toMatchObject({ fromDay: '2026-05-01', toDay: '2026-05-02' });
  });
});
