/**
 * The list reports whose count and totals come from a query of their own (ReportDef.listTotals,
 * src/reports/registry.ts; issue 29): toll_charges and tolls from the daily facts, refuels from the fills per
 * day, trips from a narrow scan. A page of them — for the day lists read from the days it falls on
 * only — is the same slice of the
 * whole result, and its count, totals and blanks are those of all the rows, as the rows themselves
 * add up (the whole result read and summed here, not through the facts). On the shared simulator
 * sync with a prices file (some gantries priced, one without a tariff: blank charges).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import {
  requireReport,
  runReport,
  streamReport,
  type JsonRow,
  type ReportPage,
  type ReportResult,
  type ReportScope,
} from '../../src/reports/run.ts';
import { ACCOUNT } from '../helpers/synced.ts';
import { loadHarnessPrices } from '../helpers/prices-file.ts';
import { startSharedSync, type SharedSync } from '../helpers/shared-sync.ts';

let s: SharedSync;
let scope: ReportScope;
let con: DuckDBConnection;
beforeAll(async () => {
  s = await startSharedSync();
  scope = { account: ACCOUNT, zone: s.h.fleet.timezone, nowMs: s.h.now() };
  await loadHarnessPrices(s.h);
  con = await s.h.db.connect();
}, 300_000);
afterAll(async () => {
  con?.closeSync();
  await s?.h.close();
});

const whole = () => ({ from: s.h.firstDay, to: s.h.lastDay });
const run = (name: string, raw: Record<string, string>, page?: ReportPage) => {
  const def = requireReport(name);
  return runReport(con, def, scope, parseReportParams(raw, def, scope), page);
};

/** The count, sums and blanks of `rows`, added up here. */
function added(name: string, rows: JsonRow[]) {
  const totals: Record<string, number | null> = {};
  const blank: Record<string, number> = {};
  for (const c of requireReport(name)
    .columns.filter((c) => c.total)
    .map((c) => c.name)) {
    const known = rows.map((r) => r[c]).filter((v): v is number => typeof v === 'number');
    totals[c] = known.length ? Math.round(known.reduce((a, v) => a + v, 0) * 1000) / 1000 : null;
    blank[c] = rows.length - known.length;
  }
  return { total: rows.length, totals, totals_blank: blank };
}

const totalsOf = (r: Pick<ReportResult, 'total' | 'totals' | 'totals_blank'>) => ({
  total: r.total,
  totals: r.totals,
  totals_blank: r.totals_blank,
});

/** The offsets that try a page's edges: the start, days' ends (a page across days), the end. */
function offsets(whole: JsonRow[], limit: number): number[] {
  const at = [
    0,
    limit,
    Math.max(0, whole.length - limit - 1),
    Math.max(0, whole.length - 3),
    whole.length,
    whole.length + 5,
  ];
  // a page that starts on a day's last row and one that starts on a day's first
  const i = whole.findIndex((r, k) => k > 0 && r.local_date !== whole[k - 1]!.local_date);
  if (i > 0) at.push(i - 1, i);
  const mid = whole.findIndex((r, k) => k > whole.length / 2 && r.local_date !== whole[k - 1]!.local_date);
  if (mid > 0) at.push(mid - 2, mid);
  return [...new Set(at)].sort((a, b) => a - b);
}

describe('toll_charges and tolls: pages and totals from the daily facts', () => {
  const ranges = (): Record<string, Record<string, string>> => {
    const vehicle = String(s.h.fleet.vehicles[1]!.vehicle_id);
    const department = s.h.fleet.vehicles.find((v) => v.department)?.department ?? '';
    return {
      whole: { from: s.h.firstDay, to: s.h.lastDay },
      lastWeeks: { from: '2026-03-10', to: s.h.lastDay },
      vehicle: { from: s.h.firstDay, to: s.h.lastDay, vehicle },
      department: { from: s.h.firstDay, to: s.h.lastDay, department },
      none: { from: '2025-01-01', to: '2025-01-31' },
    };
  };
  for (const [name, sortBy] of [
    ['toll_charges', 'enter_time'],
    ['tolls', 'enter_time'],
    ['refuels', 'fill_time'],
  ] as const)
    it(name, async () => {
      for (const [label, raw] of Object.entries(ranges())) {
        const whole = await run(name, raw);
        const expected = added(name, whole.rows);
        if (label !== 'none') expect(whole.rows.length, `${name} ${label}`).toBeGreaterThan(20);
        if (name === 'toll_charges' && label === 'whole') {
          // priced and unpriced passages both: the sum and the blanks are both tried
          expect(expected.totals.charge).toBeGreaterThan(0);
          expect(expected.totals_blank.charge).toBeGreaterThan(0);
        }
        for (const [limit, at] of [
          [7, offsets(whole.rows, 7)],
          [1000, [0]],
        ] as const)
          for (const offset of at) {
            const page = await run(name, raw, { limit, offset });
            const why = `${name} ${label} limit ${limit} offset ${offset}`;
            expect(page.rows, why).toEqual(whole.rows.slice(offset, offset + limit));
            expect(totalsOf(page), why).toEqual(expected);
          }
        // a sorted page: the whole result's totals; a streamed (100,000-row) page: the same
        const sorted = await run(name, raw, { limit: 5, offset: 0, sort: sortBy, desc: true });
        expect(totalsOf(sorted)).toEqual(expected);
        expect(sorted.rows).toHaveLength(Math.min(5, whole.rows.length));
        const def = requireReport(name);
        const streamed = await streamReport(con, def, scope, parseReportParams(raw, def, scope), {
          limit: 11,
          offset: 3,
        });
        const rows: JsonRow[] = [];
        for await (const chunk of streamed.rows) rows.push(...chunk);
        expect(rows).toEqual(whole.rows.slice(3, 14));
        expect(totalsOf(streamed)).toEqual(expected);
      }
    });

  for (const name of ['trips', 'logbook'])
    it(`${name}: the count and totals of a narrow scan; with a driver (trips), the rows themselves`, async () => {
      const { vehicles, drivers } = s.h.fleet;
      const ranges: Record<string, Record<string, string>> = {
        whole: { from: s.h.firstDay, to: s.h.lastDay },
        vehicle: { from: s.h.firstDay, to: s.h.lastDay, vehicle: String(vehicles[2]!.vehicle_id) },
        department: { from: '2026-03-10', to: s.h.lastDay, department: String(vehicles[0]!.department) },
        ...(name === 'trips' ? { driver: { ...whole(), driver: String(drivers[0]!.driver_id) } } : {}),
      };
      for (const [label, raw] of Object.entries(ranges)) {
        const all = await run(name, raw);
        const expected = added(name, all.rows);
        expect(all.rows.length, label).toBeGreaterThan(20);
        for (const v of Object.values(expected.totals)) expect(v, label).toBeGreaterThan(0);
        // the logbook's counted_km leaves out trips over an odometer window left out (its totals
        // take those off the day facts' readings: both parts are tried)
        if (name === 'logbook' && label === 'whole')
          expect(expected.totals_blank.counted_km).toBeGreaterThan(expected.totals_blank.km ?? 0);
        // a page across two vehicles (the logbook is read vehicle by vehicle), the last, past the end
        const next = all.rows.findIndex((r, k) => k > 0 && r.vehicle_id !== all.rows[k - 1]!.vehicle_id);
        for (const offset of [
          0,
          5,
          ...(next > 0 ? [Math.max(0, next - 3)] : []),
          all.rows.length - 3,
          all.rows.length + 2,
        ]) {
          const page = await run(name, raw, { limit: 7, offset });
          expect(page.rows, `${label} ${offset}`).toEqual(all.rows.slice(offset, offset + 7));
          expect(totalsOf(page), `${label} ${offset}`).toEqual(expected);
        }
      }
    });

  it('the page is read from the facts: a fact changed by hand moves its count (the check can fail)', async () => {
    const raw = { from: s.h.firstDay, to: s.h.lastDay };
    const before = await run('tolls', raw, { limit: 7, offset: 0 });
    const [one] = (
      await con.runAndReadAll(
        `SELECT vehicle_id, day::VARCHAR AS day FROM daily_facts WHERE stream = 'visits' AND toll_passages > 0 LIMIT 1`,
      )
    ).getRowObjectsJS();
    await con.run(
      `UPDATE daily_facts SET toll_passages = toll_passages + 1 WHERE stream = 'visits' AND vehicle_id = $1 AND day = $2::DATE`,
      [one!.vehicle_id as bigint, one!.day as string],
    );
    const after = await run('tolls', raw, { limit: 7, offset: 0 });
    expect(after.total).toBe(before.total + 1);
  });
});
