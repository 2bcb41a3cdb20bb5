/**
 * The dashboard in a real Chromium (playwright-core, the Debian binary): every page draws its
 * charts from the report API, the filter bar drives charts and download links, and a downloaded
 * CSV is byte-for-byte what `fleetsync export` writes for the same filter.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../reports/fixture.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI === 'true')
  throw new Error(
    `${CHROMIUM} is missing: CI must install chromium (apt-get install chromium) for browser tests`,
  );
if (!haveChromium) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);

let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' }),
    log: silentLogger,
    now: () => new Date(NOW),
    port: 0,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  fx?.close();
});

async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ acceptDownloads: true });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(new URL(path, srv.url).href);
  await page.waitForSelector('body[data-loading="false"]');
  return { page, problems };
}

const chartData = (page: Page, id: string) =>
  page.evaluate((cid) => {
    const c = document.getElementById(cid) as HTMLCanvasElement;
    const ch = (
      globalThis as unknown as { Chart: { getChart(c: HTMLCanvasElement): { data: unknown } } }
    ).Chart.getChart(c);
    return JSON.parse(JSON.stringify(ch?.data ?? null)) as {
      labels: string[];
      datasets: { label: string; data: number[] }[];
    };
  }, id);

const RANGE = '?from=2026-03-01&to=2026-04-30';

describe.skipIf(!haveChromium)('dashboard in Chromium', () => {
  it.each([
    ['index.html', ['chart-trend', 'chart-top']],
    ['mileage.html', ['chart-mileage']],
    ['fuel.html', ['chart-fuel']],
    ['tolls.html', ['chart-tolls']],
    ['carpool.html', ['chart-departments', 'chart-status']],
    ['quality.html', []],
    ['runs.html', []],
  ])('%s draws its charts without errors', async (path, charts) => {
    const { page, problems } = await open(`/${path}${RANGE}`);
    try {
      expect(await page.locator('#error').isHidden()).toBe(true);
      for (const id of charts) {
        const d = await chartData(page, id);
        expect(d, id).not.toBeNull();
        expect(d.labels.length, id).toBeGreaterThan(0);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('overview: KPI tiles and the top-vehicles chart show the report numbers', async () => {
    const { page } = await open(`/index.html${RANGE}`);
    try {
      // March + April: vehicle 1 1000 + 750 km, vehicle 2 42 + 0 km.
      expect(await page.locator('#kpi-distance .value').textContent()).toBe('1792');
      expect(await page.locator('#kpi-tolls .value').textContent()).toBe('3');
      expect(await page.locator('#kpi-fresh .value').textContent()).toBe('2026-04-12 00:00:00+10:00');
      const top = await chartData(page, 'chart-top');
      expect(top.labels.slice(0, 2)).toEqual(['ab 123 gp', 'cd 456 gp']);
      expect(top.datasets[0]!.data.slice(0, 2)).toEqual([1750, 42]);
    } finally {
      await page.close();
    }
  });

  it('changing the filter redraws the chart and changes the download link', async () => {
    const { page } = await open(`/mileage.html${RANGE}`);
    try {
      expect((await chartData(page, 'chart-mileage')).datasets[0]!.data).toEqual([1042, 750]);
      const before = await page.locator('#csv-mileage').getAttribute('href');
      await page.selectOption('#f-vehicle', '2');
      await page.waitForSelector('body[data-loading="false"]');
      await expect
        .poll(async () => (await chartData(page, 'chart-mileage')).datasets[0]!.data)
        .toEqual([42, 0]);
      const after = await page.locator('#csv-mileage').getAttribute('href');
      expect(after).not.toBe(before);
      expect(after).toContain('vehicle=2');
      // the totals row ties to the rows
      expect(await page.locator('#table-mileage tr.totals td[data-col="distance_km"]').textContent()).toBe(
        '42',
      );
      await page.selectOption('#f-preset', 'last_month');
      await page.waitForSelector('body[data-loading="false"]');
      await expect.poll(() => page.locator('#csv-mileage').getAttribute('href')).toContain('from=2026-04-01');
    } finally {
      await page.close();
    }
  });

  it('a downloaded CSV equals the export of the same filter', async () => {
    const { page } = await open(`/tolls.html?from=2026-04-01&to=2026-04-30&vehicle=1`);
    try {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#csv-tolls')]);
      const got = readFileSync((await download.path())!);
      const def = requireReport('tolls');
      const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
      const params = parseReportParams({ from: '2026-04-01', to: '2026-04-30', vehicle: '1' }, def, scope);
      const out = join(fx.dir, 'tolls-export.csv');
      const res = await exportReport(fx.con, def, scope, params, 'csv', out);
      expect(res.rows).toBe(1);
      expect(got.equals(readFileSync(out))).toBe(true);
    } finally {
      await page.close();
    }
  });

  it('the coverage calendar colours synced, flagged, incomplete and missing days', async () => {
    const { page } = await open('/quality.html?from=2026-04-10&to=2026-04-12');
    try {
      const cells = await page.$$eval('#coverage-calendar tbody tr', (rows) =>
        rows.map((r) => [
          (r as HTMLElement).dataset.vehicle,
          Array.from(r.querySelectorAll('td[data-status]')).map((td) => (td as HTMLElement).dataset.status),
        ]),
      );
      expect(cells).toEqual([
        ['3', ['missing', 'missing', 'missing']],
        ['1', ['synced', 'flagged', 'synced']],
        ['2', ['synced', 'flagged', 'incomplete']],
      ]);
    } finally {
      await page.close();
    }
  });
});
