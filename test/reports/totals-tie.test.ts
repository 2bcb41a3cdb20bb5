/**
 * Unknown stays unknown through every total, and money ties to the cent (issue 25, item 3), on the
 * hand-filled report fixture (Australia/Sydney, April 2026: vehicle 1 used 50 L, vehicle 3 20 L,
 * vehicle 2 0 L and one toll passage) with a prices file whose diesel price, 1.20008 per litre,
 * puts the fuel costs on fractions of a cent: vehicle 1 60.004 → 60.00, vehicle 3 24.0016 →
 * 24.00. Vehicle 3 is moved into Sales beside vehicle 1, so Sales rounded once would be 84.0056 →
 * 84.01 while its rows read 60.00 + 24.00 = 84.00. Vehicle 2 is heavy and there is no heavy
 * tariff: its one passage has no tariff, so its charges are unknown (blank), not 0.00.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPricesFile } from '../../src/prices/store.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import XLSX from 'xlsx';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
const params = (name: string) => parseReportParams({ month: '2026-04' }, requireReport(name), scope);
const report = (name: string) => runReport(fx.con, requireReport(name), scope, params(name));
const exported = async (name: string, format: 'csv' | 'xlsx') => {
  const path = join(fx.dir, `${name}.${format}`);
  await exportReport(fx.con, requireReport(name), scope, params(name), format, path);
  return { path, manifest: JSON.parse(readFileSync(`${path}.manifest.json`, 'utf8')) };
};

beforeAll(async () => {
  fx = await openFixture();
  const file = join(fx.dir, 'prices.json');
  writeFileSync(
    file,
    JSON.stringify({
      currency: 'AUD',
      defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
      fuel_prices: [{ fuel_type: 'diesel', month: '2026-04', price_per_l: 1.20008 }],
      // no tariff for heavy vehicles: vehicle 2's passage is unknown
      toll_tariffs: [
        { geofence_id: 'g-toll', vehicle_class: 'light', valid_from: '2026-01-01', charge: 6.5 },
      ],
      vehicles: [{ registration: 'CD456GP', vehicle_class: 'heavy' }],
    }),
  );
  await loadPricesFile(fx.con, ACCOUNT, { pricesFile: file }, NOW);
  await fx.con.run(`UPDATE vehicles SET description = 'Sales' WHERE vehicle_id = 3`);
  // the toll visits of April are synced
  await fx.con.run(
    `INSERT INTO ledger (account, stream, scope, window_start, window_end, status, fetched_at, run_id)
     VALUES ($1, 'visits', '*', '2026-03-31T13:00:00Z', '2026-04-30T14:00:00Z', 'done', now(), 'run-1')`,
    [ACCOUNT],
  );
});
afterAll(() => fx?.close());

describe('unknown through every total', () => {
  it('a month whose passages all lack a tariff: charges blank with the passages counted, never 0.00', async () => {
    const v2 = (await report('costs')).rows.find((r) => r.vehicle_id === 2)!;
    expect([v2.toll_passages, v2.toll_no_tariff, v2.toll_charges_known, v2.toll_charges]).toEqual([
      1,
      1,
      null,
      null,
    ]);
    // vehicle 1's passage is priced (6.50); vehicle 3 has none (0 passages: 0.00 is known)
    const v1 = (await report('costs')).rows.find((r) => r.vehicle_id === 1)!;
    const v3 = (await report('costs')).rows.find((r) => r.vehicle_id === 3)!;
    expect([v1.toll_charges_known, v3.toll_passages, v3.toll_charges_known]).toEqual([6.5, 0, 0]);
  });

  it('money rounds per row; department rows and totals are sums of the rounded vehicle rows', async () => {
    const costs = await report('costs');
    expect(costs.rows.map((r) => [r.vehicle_id, r.fuel_cost])).toEqual(
      expect.arrayContaining([
        [1, 60],
        [3, 24],
        [2, 0],
      ]),
    );
    expect(costs.totals.fuel_cost).toBe(84);
    const deps = await report('cost_departments');
    const sales = deps.rows.find((r) => r.department === 'Sales')!;
    expect([sales.vehicles, sales.fuel_cost]).toEqual([2, 84]);
    expect(deps.totals.fuel_cost).toBe(costs.totals.fuel_cost);
  });

  it('JSON and the CSV manifest: a total with unknown rows is partial, naming how many', async () => {
    const costs = await report('costs');
    expect(costs.totals.toll_charges_known).toBe(6.5);
    expect(costs.totals_blank.toll_charges_known).toBe(1);
    expect(costs.totals_blank.toll_charges).toBe(1);
    expect(costs.totals_blank.fuel_cost).toBe(0);
    const { manifest } = await exported('costs', 'csv');
    expect(manifest.totals.toll_charges).toBe(6.5);
    expect(manifest.totals_blank).toEqual(costs.totals_blank);
    // vehicle 3 has no distance (1 row), vehicle 2 no tariff (1 row); cost_per_km is not summed
    expect(manifest.totals_partial).toEqual([
      'distance_km',
      'energy_kwh',
      'toll_charges_known',
      'toll_charges',
    ]);
    const deps = await exported('cost_departments', 'csv');
    expect(deps.manifest.totals_blank.toll_charges).toBe(1);
    expect(deps.manifest.totals_partial).toContain('toll_charges');
  });

  it('XLSX: the total stays a number, the row under it says "partial: 1 row unknown", the About sheet says why', async () => {
    const { path } = await exported('cost_departments', 'xlsx');
    const wb = XLSX.read(readFileSync(path), { type: 'buffer', cellFormula: true });
    const rows = XLSX.utils.sheet_to_json(wb.Sheets.Report!, { header: 1, defval: null }) as unknown[][];
    const head = rows[0] as string[];
    const col = head.indexOf('Toll charges');
    const fuel = head.indexOf('Fuel cost');
    // header, Ops, Sales, totals, note
    expect(rows).toHaveLength(5);
    const [totals, note] = [rows[3]!, rows[4]!];
    expect(totals[col]).toBe(6.5);
    expect(totals[fuel]).toBe(84);
    expect(note[0]).toBe('Not in the total');
    expect(note[col]).toBe('partial: 1 row unknown');
    expect(note[fuel]).toBeNull();
    const about = Object.fromEntries(
      (XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][]).map((r) => [r[0], r[1]]),
    );
    expect(about.Totals).toMatch(/^partial: the totals row sums the rows with a value/);
    expect(about.Totals).toContain('Toll charges partial: 1 row unknown');
  });
});
