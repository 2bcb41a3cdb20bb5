/**
 * logbook_years reads the trip log once (logbook_year_totals, queries/models/logbook.sql: the
 * year's trip totals and the trip that moves its odometer from one read of logbook_trips), with the
 * same rows as before: fixtures/logbook-years.before.json holds the report's rows on the hand
 * fixture as the two-read version (commit df4719d) gave them, for three ranges, before and after
 * the fleet's trips are marked synced.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import { bindings, prepareBound, requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { loadSql } from '../../src/store/queries.ts';
import {
  ACCOUNT,
  NOW,
  ZONE,
  markFleetStreamsSynced,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
const def = requireReport('logbook_years');
const RANGES = [
  { from: '2026-03-01', to: '2026-04-30' },
  { from: '2025-01-01', to: '2026-12-31' },
  { from: '2026-04-02', to: '2026-04-02' },
];

beforeAll(async () => {
  fx = await openFixture();
});
afterAll(() => fx?.close());

describe('logbook_years', () => {
  it('reads only the trip columns its totals need (no wide trip row is materialized)', async () => {
    await prepareModelConnection(fx.con);
    const sql = loadSql('reports/logbook_years').trim().replace(/;\s*$/, '');
    const values = bindings(scope, parseReportParams(RANGES[0]!, def, scope));
    const ps = await prepareBound(fx.con, `EXPLAIN (FORMAT JSON) ${sql}`, values);
    const plan = (await ps.runAndReadAll())
      .getRowObjectsJS()
      .map((r) => String(r.explain_value))
      .join('');
    const scans: { table: string; columns: string }[] = [];
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) return n.forEach(walk);
      if (!n || typeof n !== 'object') return;
      const o = n as { name?: string; extra_info?: { Table?: string; Projections?: string | string[] } };
      if (String(o.name).includes('SCAN') && o.extra_info?.Table)
        scans.push({ table: o.extra_info.Table, columns: [o.extra_info.Projections ?? []].flat().join(',') });
      Object.values(o).forEach(walk);
    };
    walk(JSON.parse(plan));
    // Issue 29: one read that kept every column materialized a tax year of trips (9 M rows at
    // 5,000 vehicles; 19 s of CPU); two narrow reads (the year's trips, and their key and times
    // against the windows left out) took 5 s.
    // Session 14: the years' totals come from the trips' day facts; the trips are read for their
    // vehicle and times only (which overlap a window left out; session 17: not their key, a text
    // column, either: logbook_left_out_spans counts them by vehicle, start and end), and trip by
    // trip only on the few days a window's edge cuts (a join on those days: not read at all when
    // there are none).
    const trips = scans.filter((t) => t.table.endsWith('.trips'));
    expect(trips.length).toBeGreaterThanOrEqual(1);
    expect(trips.length).toBeLessThanOrEqual(3);
    expect(trips.map((t) => t.columns.split(',').sort().join(','))).toContain(
      'end_time,start_time,vehicle_id',
    );
    for (const t of trips) {
      expect(t.columns).toContain('start_time');
      for (const wide of ['start_location', 'end_location', 'trip_title', 'trip_extra_notes', 'registration'])
        expect(t.columns.split(','), t.columns).not.toContain(wide);
    }
  });

  it('gives the rows the two-read version gave on the hand fixture', async () => {
    const before = JSON.parse(
      readFileSync(new URL('./fixtures/logbook-years.before.json', import.meta.url), 'utf8'),
    ) as unknown[];
    const now: unknown[] = [];
    for (const synced of [false, true]) {
      if (synced) await markFleetStreamsSynced(fx.con);
      for (const raw of RANGES)
        now.push((await runReport(fx.con, def, scope, parseReportParams(raw, def, scope))).rows);
    }
    expect(now).toEqual(before);
    expect(now.flat().length).toBe(24);
  });
});
