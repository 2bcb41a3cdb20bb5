/**
 * Costs on the dashboard, on a synced simulator fleet with a prices file: the overview's cost and
 * CO₂ tiles are '—' until a prices file is loaded, then equal the sums of the costs download's
 * columns (the CSV the section links to); the fuel page lists the refuels (the fill the API lists
 * twice, once) and the filled-vs-used reconciliation; the tolls page shows each passage's charge,
 * a passage without a tariff blank and "No tariff".
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { reusedPage } from '../helpers/dashboard-page.ts';
import { loadHarnessPrices } from '../helpers/prices-file.ts';
import { parseCsv } from '../helpers/report-fixture.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, queryDb, type Harness } from '../helpers/synced.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

let h: Harness;
let srv: RunningServer;
let browser: Browser;
let range: string;

beforeAll(async () => {
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  // The counter vehicle's fills not pulled yet, as a database synced before every level-sensor
  // vehicle's fills were pulled stands until its next run: its reconciliation rows are blank.
  for (const sql of [
    'DELETE FROM fuel_fills WHERE account = $1 AND vehicle_id = $2',
    "DELETE FROM ledger WHERE account = $1 AND stream = 'fuel_fills' AND scope = $2::VARCHAR",
  ])
    await queryDb(h.db, sql, [ACCOUNT, h.fleet.vehicles[0]!.vehicle_id]);
  srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  browser = await sharedChromium();
  range = `from=${h.firstDay}&to=${h.lastDay}`;
}, 180_000);
afterAll(async () => {
  await pages.close();
  await browser?.close();
  await srv?.close();
  await h?.close();
});

/** One page for the file's tests (reusedPage). */
const pages = reusedPage(() => browser);
const open = (path: string) => pages.open(new URL(path, srv.url).href);

/** Loads a prices file; `tariffs: false` gives no gantry a tariff (every passage unpriced). */
const loadPrices = (o: { tariffs?: boolean } = {}) => loadHarnessPrices(h, o);

/** The CSV a section's download link points to, as objects keyed by header. */
async function download(page: Page, id: string): Promise<Record<string, string>[]> {
  const href = await page.getAttribute(`#csv-${id}`, 'href');
  const res = await fetch(new URL(href!, srv.url));
  expect(res.status).toBe(200);
  const [head, ...rows] = parseCsv((await res.text()).replace(/^\uFEFF/, ''));
  return rows
    .filter((r) => r.length > 1)
    .map((r) => Object.fromEntries(head!.map((c, i) => [c, r[i] ?? ''])));
}
const sum = (rows: Record<string, string>[], col: string) =>
  rows.reduce((s, r) => s + (r[col] === '' ? 0 : Number(r[col])), 0);
const tileValue = (page: Page, id: string) => page.textContent(`#kpi-${id} .value`);
// money with its two decimals always, as the tables show it ("19,094.50 AUD", not "19,094.5 AUD")
const money = (n: number) =>
  `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(n)} AUD`;

describe('the costs on the dashboard', () => {
  it('without a prices file the cost tiles are unknown (—), never 0', async () => {
    const { page, problems } = await open(`index.html?${range}`);
    expect(await tileValue(page, 'fuel-cost')).toBe('—');
    expect(await page.textContent('#kpi-fuel-cost .sub')).toContain('no prices file loaded');
    expect(await tileValue(page, 'co2')).toBe('—');
    expect(problems).toEqual([]);
    await pages.release(page);
  });

  it('with prices: the tiles are the sums of the costs download', async () => {
    const untariffed = await loadPrices();
    const { page, problems } = await open(`index.html?${range}`);
    const csv = await download(page, 'costs');
    expect(csv.length).toBeGreaterThan(6);
    const fuelCost = sum(csv, 'fuel_cost');
    expect(fuelCost).toBeGreaterThan(0);
    expect(await tileValue(page, 'fuel-cost')).toBe(money(fuelCost));
    expect(await tileValue(page, 'toll-charges')).toBe(money(sum(csv, 'toll_charges_known')));
    expect(await tileValue(page, 'co2')).toBe(
      `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(sum(csv, 'co2_kg'))} kg`,
    );
    const truthNoTariff = h.fleet.truth
      .tollVisits(h.fleet.startMs, h.fleet.endMs)
      .filter((v) => v.geofence_id === untariffed.geofence_id).length;
    expect(truthNoTariff).toBeGreaterThan(0);
    expect(sum(csv, 'toll_no_tariff')).toBe(truthNoTariff);
    // the charges leave those passages out: partial, and says so
    expect(await page.textContent('#kpi-toll-charges .sub')).toMatch(
      new RegExp(`^partial: .* ${truthNoTariff} without a tariff`),
    );
    // the department table under the tiles: its download's passages add up to the tile's
    const deps = await download(page, 'cost-departments');
    expect(deps.length).toBeGreaterThan(0);
    expect(sum(deps, 'toll_no_tariff')).toBe(truthNoTariff);
    expect(sum(deps, 'distance_km')).toBeCloseTo(sum(csv, 'distance_km'), 2);
    expect(await page.locator('#table-cost-departments tbody tr:not(.totals)').count()).toBe(deps.length);
    expect(problems).toEqual([]);
    await pages.release(page);
  });

  it('no passage with a tariff: the toll-charges tile is blank with its reason, never 0.00 (issue 25)', async () => {
    await loadPrices({ tariffs: false });
    try {
      const { page, problems } = await open(`index.html?${range}`);
      const csv = await download(page, 'costs');
      const passages = h.fleet.truth.tollVisits(h.fleet.startMs, h.fleet.endMs).length;
      expect(passages).toBeGreaterThan(0);
      expect(sum(csv, 'toll_passages')).toBe(passages);
      // every vehicle-month with passages has its known charges blank, not 0
      for (const r of csv.filter((r) => Number(r.toll_passages) > 0)) expect(r.toll_charges_known).toBe('');
      expect(await tileValue(page, 'toll-charges')).toBe('—');
      expect(await page.textContent('#kpi-toll-charges .sub')).toBe(
        `unknown: ${new Intl.NumberFormat('en-US').format(passages)} passages, ${new Intl.NumberFormat('en-US').format(passages)} without a tariff`,
      );
      expect(problems).toEqual([]);
      await pages.release(page);
    } finally {
      await loadPrices();
    }
  });

  it('the tolls page: a passage without a tariff reads "No tariff" with a blank charge', async () => {
    const { page, problems } = await open(`tolls.html?${range}`);
    const csv = await download(page, 'charges');
    const blank = csv.filter((r) => r.tariff_status === 'no_tariff');
    expect(blank.length).toBeGreaterThan(0);
    for (const r of blank) expect(r.charge).toBe('');
    const cells = await page.$$eval('#table-charges tbody tr:not(.totals)', (trs) =>
      trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? '')),
    );
    expect(cells.some((c) => c.includes('No tariff'))).toBe(true);
    expect(problems).toEqual([]);
    await pages.release(page);
  });

  it('the fuel page: the refuels (the fill listed twice, once) and filled vs used', async () => {
    const level = h.fleet.vehicles[5]!;
    const { page, problems } = await open(`fuel.html?${range}&vehicle=${level.vehicle_id}`);
    const fills = h.fleet.fillsOf(level.vehicle_id).filter((f) => f.at_ms < h.fleet.endMs);
    expect(fills.some((f) => f.listed_twice)).toBe(true);
    const rows = await page.$$eval('#table-refuels tbody tr:not(.totals)', (trs) => trs.length);
    expect(rows).toBe(fills.length);
    const csv = await download(page, 'refuels');
    expect(csv.length).toBe(fills.length);
    expect(sum(csv, 'litres')).toBeCloseTo(
      fills.reduce((s, f) => s + f.litres, 0),
      2,
    );
    expect(await page.isVisible('#chart-reconciliation')).toBe(true);
    expect(problems).toEqual([]);
    await pages.release(page);
  });

  it('filled vs used compares like with like: the used bar covers only the vehicle-months whose fills are known', async () => {
    const { page, problems } = await open(`fuel.html?${range}`);
    const csv = await download(page, 'reconciliation');
    const known = csv.filter((r) => r.filled_l !== '');
    expect(known.length).toBeGreaterThan(0);
    expect(known.length).toBeLessThan(csv.length); // the counter vehicle: fills not synced, blank
    const chart = await page.evaluate(() => {
      const c = document.getElementById('chart-reconciliation') as HTMLCanvasElement;
      const ch = (
        globalThis as unknown as {
          Chart: { getChart(c: HTMLCanvasElement): { data: { datasets: { data: number[] }[] } } };
        }
      ).Chart.getChart(c);
      return ch.data.datasets.map((d) => d.data.reduce((a, b) => a + b, 0));
    });
    expect(chart[0]).toBeCloseTo(sum(known, 'filled_l'), 2);
    expect(chart[1]).toBeCloseTo(sum(known, 'used_l'), 2);
    expect(chart[1]).toBeLessThan(sum(csv, 'used_l'));
    expect(problems).toEqual([]);
    await pages.release(page);
  });
});
