/**
 * The Logbook page on a synced simulator fleet, in Chromium (issue 27): at desk (1280) and phone
 * (390) width axe finds no serious or critical violation and the phone page does not scroll
 * sideways; a vehicle-year's business km drill down to that vehicle's trips of the whole tax year,
 * whose counted business km add up to the figure clicked; its tax year links the auditor's XLSX.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboardAt, seriousAxeViolations } from '../helpers/dashboard-page.ts';
import { startHarnessDashboard, type HarnessDashboard } from '../helpers/harness-dashboard.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import type { Harness } from '../helpers/synced.ts';

const haveChromium = checkChromium();
let h: Harness;
let dash: HarnessDashboard;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  // the fleet other browser files read (one sync per run: shared-sync.ts)
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  dash = await startHarnessDashboard(h, { FLEETSYNC_TAX_YEAR_START: '04-01' });
  ({ srv, browser } = dash);
}, 180_000);
afterAll(async () => {
  await dash?.close();
  await h?.close();
});

describe.skipIf(!haveChromium)('the Logbook page', () => {
  it.each([
    [1280, 900],
    [390, 844],
  ])(
    'at %i × %i: no serious or critical axe violation, and it reads in labels',
    async (width, height) => {
      // one day's trips (axe reads every cell of the trips table: a long one takes it minutes here)
      const { ctx, page, problems } = await openDashboardAt(
        browser,
        new URL(`/logbook.html?from=${h.lastDay}&to=${h.lastDay}`, srv.url).href,
        { width, height },
      );
      try {
        expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Logbook');
        // 6 vehicles × the tax year 2026/27 (from 1 April) the day is in
        expect(await page.locator('#table-years tbody tr:not(.totals)').count()).toBe(6);
        expect(await page.locator('#table-years thead').textContent()).toContain('Business share');
        expect(await page.locator('#table-trips tbody').first().textContent()).toMatch(/Business/);
        expect(await seriousAxeViolations(page)).toEqual([]);
        if (width < 500)
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(problems).toEqual([]);
      } finally {
        await ctx.close();
      }
    },
    120_000,
  );

  it("a vehicle-year's business km drill down to the trips behind it; its tax year is the auditor's XLSX", async () => {
    const page = await browser.newPage({ locale: 'en-US' });
    try {
      await page.goto(new URL(`/logbook.html?from=${h.firstDay}&to=${h.lastDay}`, srv.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      // the first vehicle's 2026/27 row (from 1 April 2026)
      const row = page.locator('#table-years tbody tr', { hasText: '2026/27' }).first();
      const business = Number(
        (await row.locator('td[data-col="business_km"]').getAttribute('data-value')) ?? 'NaN',
      );
      expect(business).toBeGreaterThan(0);
      const xlsx = await row.locator('td[data-col="tax_year"] a').getAttribute('href');
      expect(xlsx).toMatch(/^\/api\/reports\/logbook\.xlsx\?vehicle=\d+&from=2026-04-01&to=2027-03-31$/);
      await Promise.all([
        page.waitForURL(/from=2026-04-01/),
        row.locator('td[data-col="business_km"] a').click(),
      ]);
      await page.waitForSelector('body[data-loading="false"]');
      const vehicle = new URL(page.url()).searchParams.get('vehicle');
      expect(vehicle).toBe(new URLSearchParams(xlsx!.split('?')[1]).get('vehicle'));
      expect(new URL(page.url()).searchParams.get('to')).toBe('2027-03-31');
      // the trips behind the figure: every trip of that vehicle-year, read whole from the API
      // the section's download names (its CSV link), summed by class here
      const csvHref = await page.locator('#csv-trips').getAttribute('href');
      expect(csvHref).toContain(`vehicle=${vehicle}`);
      const rows = (await page.evaluate(async (u) => {
        const r = await fetch(u.replace('.csv?', '?') + '&limit=1000');
        return ((await r.json()) as { rows: Record<string, unknown>[] }).rows;
      }, csvHref!)) as { trip_class: string; counted_km: number | null }[];
      const sum = rows
        .filter((r) => r.trip_class === 'business')
        .reduce((a, r) => a + (r.counted_km ?? 0), 0);
      expect(sum).toBeCloseTo(business, 1);
    } finally {
      await page.close();
    }
  });
});
