/**
 * The Utilisation and Drivers pages on a synced simulator fleet, in Chromium: the tiles equal
 * the sums of the download beside them, the vehicle ranking drills down to a vehicle and then to
 * one month's days (whose download holds only that vehicle and month), and the Drivers page shows
 * the drivers by name while its download keeps the ids.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { downloadCsv as download } from '../helpers/synced-dashboard.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
let h: Harness;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  // The shared fleet of the fuel-drops files: no fleet built for this file alone.
  const shared = await startSharedSync({ seed: 7, vehicles: 10, days: 45, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await h?.close();
});

const tile = async (page: Page, id: string) =>
  Number((await page.textContent(`#util-${id} .value`))!.replace(/[^\d.]/g, ''));
const sum = (rows: Record<string, string>[], col: string) =>
  rows.reduce((a, r) => a + Number(r[col] || 0), 0);

describe.skipIf(!haveChromium)('utilisation and drivers pages', () => {
  it('the tiles equal the sums of their download, and drill down to a vehicle and a month', async () => {
    const { page, problems } = await openDashboard(
      browser,
      new URL(`utilisation.html?from=${h.firstDay}&to=${h.lastDay}`, srv.url).href,
      { acceptDownloads: true },
    );
    try {
      const rows = await download(page, 'csv-tiles');
      expect(rows.length).toBe(10 * 2); // 10 vehicles × March and April
      expect(await tile(page, 'driving')).toBeCloseTo(sum(rows, 'driving_h'), 1);
      expect(await tile(page, 'idle')).toBeCloseTo(sum(rows, 'idle_h'), 1);
      expect(await tile(page, 'after')).toBeCloseTo(sum(rows, 'after_hours_h'), 1);
      expect(await tile(page, 'utilisation')).toBeCloseTo(
        (sum(rows, 'days_used') / sum(rows, 'days_available')) * 100,
        1,
      );
      expect(await tile(page, 'driving')).toBeGreaterThan(0);

      // Fleet → vehicle
      const reg = rows[0]!.registration!;
      const vid = rows[0]!.vehicle_id!;
      await Promise.all([page.waitForURL(/vehicle=/), page.click(`#table-ranking a:text-is("${reg}")`)]);
      await page.waitForSelector('body[data-loading="false"]');
      const mine = await download(page, 'csv-tiles');
      expect(new Set(mine.map((r) => r.vehicle_id))).toEqual(new Set([vid]));
      expect(await tile(page, 'driving')).toBeCloseTo(sum(mine, 'driving_h'), 1);

      // vehicle → month: the tiles give way to that month's days
      await Promise.all([
        page.waitForURL(/month=2026-04/),
        page.click('#table-ranking a:text-is("Apr 2026")'), // months as people write them
      ]);
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.isHidden('#sec-tiles')).toBe(true);
      expect(await page.textContent('#breadcrumb')).toContain('Apr 2026'); // a month as people write it
      const days = await download(page, 'csv-after-hours');
      // every day of April: 1–20 synced, 21–30 never synced and blank, not 0
      expect(days.length).toBe(30);
      expect(days.filter((r) => r.synced === 'true').map((r) => r.day)).toEqual(
        days.map((r) => r.day!).filter((d) => d <= h.lastDay),
      );
      for (const r of days.filter((x) => x.day! > h.lastDay))
        expect([r.driving_h, r.idle_h]).toEqual(['', '']);
      expect(new Set(days.map((r) => r.vehicle_id))).toEqual(new Set([vid]));
      expect(sum(days, 'driving_h')).toBeCloseTo(
        Number(mine.find((r) => r.period === '2026-04')!.driving_h),
        2,
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('drivers: names on the page, ids in the download, distances that tie', async () => {
    const { page, problems } = await openDashboard(
      browser,
      new URL(`drivers.html?from=${h.firstDay}&to=${h.lastDay}`, srv.url).href,
      { acceptDownloads: true },
    );
    try {
      const body = (await page.textContent('#table-drivers'))!;
      for (const d of h.fleet.drivers) expect(body).toContain(`${d.first_name} ${d.last_name}`);
      const rows = await download(page, 'csv-drivers');
      // every driver, and the trips without one: the "no driver recorded" rows (blank id)
      expect(new Set(rows.map((r) => r.driver_id))).toEqual(
        new Set(['', ...h.fleet.drivers.map((d) => d.driver_id)]),
      );
      expect(
        rows.filter((r) => r.driver_id === '').every((r) => r.driver_name === 'no driver recorded'),
      ).toBe(true);
      const api = await h.report('drivers');
      expect(sum(rows, 'distance_km')).toBeCloseTo(
        api.reduce((a, r) => a + Number(r.distance_km ?? 0), 0),
        2,
      );
      expect(sum(rows, 'distance_km')).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
