/**
 * The JSON API sends a report one page at a time (1,000 rows unless `limit` says otherwise, with
 * `total` for all of them). The dashboard reads what must be whole page after page: the filter
 * bar lists every vehicle and department, and a chart sums every row of its report, not only the
 * table's first page. A fleet of 1,103 vehicles, 1,100 of them sorting before the fixture's.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { appendRows } from '../../src/store/write.ts';
import { CHROMIUM, CHROMIUM_ARGS, haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import {
  ACCOUNT,
  APR_11,
  APR_START,
  NOW,
  ZONE,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

const haveChromium = checkChromium();
const EXTRA = 1100;
const reg = (i: number) => `AA ${String(i).padStart(4, '0')}`;

let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  const ids = Array.from({ length: EXTRA }, (_, i) => i);
  await appendRows(
    fx.con,
    'vehicles',
    ids.map((i) => ({
      account: ACCOUNT,
      synced_at: NOW,
      vehicle_id: 10_000 + i,
      registration: reg(i),
      // The last vehicle of the list has a department no other vehicle has.
      description: i === EXTRA - 1 ? 'Depot' : 'Fleet',
      fuel_canbus_consumed: false,
      fuel_canbus_level: false,
      fuel_analog_level: false,
      electric_battery: false,
      electric_charging: false,
    })),
  );
  await appendRows(
    fx.con,
    'odometer_windows',
    ids.map((i) => ({
      account: ACCOUNT,
      vehicle_id: 10_000 + i,
      window_start: APR_START,
      window_end: APR_11,
      distance_m: 1000,
      odometer_reset: false,
      terminal_has_changed: false,
    })),
  );
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  fx?.close();
});

const RANGE = '?from=2026-03-01&to=2026-04-30';

const open = (path: string) => openDashboard(browser, new URL(path, srv.url).href);

/** Every row of the mileage report for the range, straight from the query (no page). */
async function mileageRows() {
  const def = requireReport('mileage');
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
  const params = parseReportParams({ from: '2026-03-01', to: '2026-04-30' }, def, scope);
  return (await runReport(fx.con, def, scope, params)).rows;
}

describe.skipIf(!haveChromium)('dashboard over paged reports', () => {
  it('the filter bar lists every vehicle and every department', async () => {
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      const vehicles = await page.locator('#f-vehicle option').allTextContents();
      expect(vehicles.length).toBe(1 + 3 + EXTRA); // "All vehicles", the fixture's, the added ones
      expect(vehicles).toContain(reg(EXTRA - 1));
      expect(vehicles).toContain('cd 456 gp');
      expect(await page.locator('#f-department option').allTextContents()).toContain('Depot');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the mileage chart sums every row of the report; the table shows one page with totals over all', async () => {
    const rows = await mileageRows();
    expect(rows.length).toBeGreaterThan(1000); // more than one page
    const want = new Map<string, number>();
    for (const r of rows)
      want.set(String(r.period), (want.get(String(r.period)) ?? 0) + Number(r.distance_km ?? 0));
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      const chart = await page.evaluate(() => {
        const c = document.getElementById('chart-mileage') as HTMLCanvasElement;
        const ch = (
          globalThis as unknown as {
            Chart: {
              getChart(c: HTMLCanvasElement): { data: { labels: string[]; datasets: { data: number[] }[] } };
            };
          }
        ).Chart.getChart(c);
        return { labels: ch.data.labels, data: ch.data.datasets[0]!.data };
      });
      expect(chart.labels).toEqual([...want.keys()].sort());
      chart.labels.forEach((period, i) => expect(chart.data[i], period).toBeCloseTo(want.get(period)!, 3));
      expect(await page.locator('#table-mileage .page-note').textContent()).toBe(
        `Showing 1,000 of ${rows.length.toLocaleString('en-US')} rows — download the CSV for all.`,
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
