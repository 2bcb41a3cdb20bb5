/**
 * Pages of a report read from the vehicles they fall on (ReportDef.vehiclePages, src/reports/run.ts) against
 * the whole result: pages that start, end and cross at each vehicle's first and last row, the
 * first page, the last and one past the end each equal the slice of the whole (unpaged) result at
 * their offset, and every page's count, totals and blank counts are the whole result's, worked out
 * here from its rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import type { ReportParams } from '../../src/reports/params.ts';
import type { ReportDef } from '../../src/reports/registry.ts';
import { runReport, type ReportScope } from '../../src/reports/run.ts';

export async function expectVehiclePagesExact(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
): Promise<{ rows: number; vehicles: number }> {
  expect(def.vehiclePages).toBeDefined();
  const whole = (await runReport(con, def, scope, params)).rows;
  const totalled = def.columns.filter((c) => c.total).map((c) => c.name);
  const totals: Record<string, number | null> = {};
  const blank: Record<string, number> = {};
  for (const c of totalled) {
    const known = whole.map((r) => r[c]).filter((v): v is number => typeof v === 'number');
    totals[c] = known.length ? Math.round(known.reduce((a, v) => a + v, 0) * 1000) / 1000 : null;
    blank[c] = whole.length - known.length;
  }
  // each vehicle's rows lie together: the offsets where a vehicle's rows start
  const starts = whole.flatMap((r, i) => (i === 0 || whole[i - 1]!.vehicle_id !== r.vehicle_id ? [i] : []));
  expect(new Set(whole.map((r) => r.vehicle_id)).size).toBe(starts.length);
  const n = whole.length;
  const pages = [
    { offset: 0, limit: 1000 },
    { offset: 0, limit: 1 },
    ...starts.flatMap((s) => [
      { offset: Math.max(0, s - 1), limit: 2 }, // the last row of one vehicle and the first of the next
      { offset: Math.max(0, s - 2), limit: Math.ceil(n / Math.max(1, starts.length)) + 3 }, // across two vehicles
    ]),
    { offset: Math.max(0, n - 1), limit: 5 },
    { offset: n + 3, limit: 5 },
  ];
  for (const page of pages) {
    const got = await runReport(con, def, scope, params, page);
    const at = `${def.name} offset ${page.offset} limit ${page.limit}`;
    expect(got.rows, at).toEqual(whole.slice(page.offset, page.offset + page.limit));
    expect(got.total, at).toBe(n);
    expect(got.totals_blank, at).toEqual(blank);
    for (const c of totalled)
      if (totals[c] === null) expect(got.totals[c], `${at} ${c}`).toBeNull();
      else expect(got.totals[c], `${at} ${c}`).toBeCloseTo(totals[c]!, 3);
  }
  return { rows: n, vehicles: starts.length };
}
