/**
 * A page of a report that aggregates (any grain but "one …": isListReport) computes the result once
 * into a temp table and reads the page and the totals from it (src/reports/run.ts, issue 29). On
 * the hand fixture, each such report's page equals the slice of the whole result at its offset
 * (in the report's order, and sorted by a column), and its total, totals and blank counts equal
 * those of the whole result summed row by row; no temp table is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES, getReport } from '../../src/reports/registry.ts';
import { isListReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import {
  ACCOUNT,
  NOW,
  ZONE,
  markFleetStreamsSynced,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';
import { expectVehiclePagesExact } from '../helpers/vehicle-pages.ts';

let fx: FixtureDb;
const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
const RANGE = { from: '2026-03-01', to: '2026-04-30' };

beforeAll(async () => {
  fx = await openFixture();
  await markFleetStreamsSynced(fx.con);
});
afterAll(() => fx?.close());

const aggregating = REPORT_NAMES.map((n) => getReport(n)!).filter(
  (d) => !isListReport(d) && !d.extra.includes('limit'),
);

describe('a page of an aggregating report', () => {
  it('the registry has both kinds', () => {
    expect(aggregating.map((d) => d.name)).toEqual(expect.arrayContaining(['mileage', 'logbook_years']));
    expect(isListReport(getReport('trips')!)).toBe(true);
  });

  it.each(aggregating.map((d) => [d.name, d] as const))(
    '%s: the page is the slice of the whole result; total and totals are the whole result’s',
    async (_, def) => {
      const params = parseReportParams(RANGE, def, scope);
      const whole = await runReport(fx.con, def, scope, params);
      for (const page of [
        { limit: 2, offset: 1 },
        { limit: 1, offset: 0 },
      ]) {
        const got = await runReport(fx.con, def, scope, params, page);
        expect(got.rows).toEqual(whole.rows.slice(page.offset, page.offset + page.limit));
        expect(got.columns).toEqual(whole.columns);
        expect(got.total).toBe(whole.rows.length);
        for (const [c, v] of Object.entries(whole.totals))
          if (v === null) expect(got.totals[c], c).toBeNull();
          else expect(got.totals[c], c).toBeCloseTo(v, 3);
        expect(got.totals_blank).toEqual(whole.totals_blank);
      }
      // sorted by its first column, descending: the same rows as sorting the whole result
      const col = def.columns[0]!.name;
      const sorted = await runReport(fx.con, def, scope, params, {
        limit: 1000,
        offset: 0,
        sort: col,
        desc: true,
      });
      expect(sorted.rows.length).toBe(whole.rows.length);
      expect(new Set(sorted.rows.map((r) => JSON.stringify(r)))).toEqual(
        new Set(whole.rows.map((r) => JSON.stringify(r))),
      );
      const keys = sorted.rows.map((r) => r[col]).filter((v) => v !== null);
      const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
      for (let i = 1; i < keys.length; i++) expect(lower(keys[i - 1])! >= lower(keys[i])!).toBe(true);
    },
  );

  it.each([
    ['coverage', {}],
    ['coverage', { department: 'Ops' }],
    ['coverage', { vehicle: '3' }],
    ['utilisation_days', {}],
    ['utilisation_days', { department: 'Sales' }],
  ] as const)(
    '%s %j: a page read vehicle by vehicle is the slice of the whole result at any offset',
    async (name, filter) => {
      const def = getReport(name)!;
      const params = parseReportParams({ ...RANGE, ...filter }, def, scope);
      const got = await expectVehiclePagesExact(fx.con, def, scope, params);
      // every selected vehicle × each of the range's 61 ended days
      const vehicles = 'vehicle' in filter || 'department' in filter ? 1 : 3;
      expect(got).toEqual({ rows: vehicles * 61, vehicles });
    },
  );

  it('leaves no temp table behind', async () => {
    const def = getReport('mileage')!;
    await runReport(fx.con, def, scope, parseReportParams(RANGE, def, scope), { limit: 1, offset: 0 });
    const left = await fx.con.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name LIKE 'report_page_%'`,
    );
    expect(left.getRowObjectsJS()[0]!.n).toBe(0);
  });
});
