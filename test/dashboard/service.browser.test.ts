/**
 * The Service page in Chromium over the hand-worked due list (test/service/fixture.ts): overdue
 * first, then due, unknown, ok, each status as its label; the figures as the report gives them
 * (BOTH 1,200 km past, MONTHS due 25 July); NOSERVICE reads "Unknown" with its reason, never OK;
 * NEW's forecast is blank, not 0. At desk and phone width axe finds no serious violation and the
 * phone page does not scroll sideways. A screenshot is left in the test's directory. The page's
 * "Record a service" form refuses a bad reading naming it and offers "Record anyway" when the
 * synced odometer contradicts it (which records it with its note in view), and records a good one:
 * BOTH is then ok (the list reloads with it).
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { startFixtureDashboard, type FixtureDashboard } from '../helpers/fixture-dashboard.ts';
import { openDashboardAt, sectionRows, seriousAxeViolations } from '../helpers/dashboard-page.ts';
import { ACCOUNT, NOW, ZONE, openServiceFixture, type ServiceFixture } from '../service/fixture.ts';

const haveChromium = checkChromium();
let dash: FixtureDashboard<ServiceFixture>;
let fx: ServiceFixture;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  dash = await startFixtureDashboard(async () => {}, {
    open: openServiceFixture,
    account: ACCOUNT,
    zone: ZONE,
    now: NOW,
  });
  ({ fx, srv, browser } = dash);
}, 60_000);
afterAll(async () => {
  await dash?.close();
});

describe.skipIf(!haveChromium)('the Service page', () => {
  it.each([
    [1280, 900],
    [390, 844],
  ])(
    'at %i × %i: the due list as worked by hand, in labels, accessible',
    async (width, height) => {
      const { ctx, page, problems } = await openDashboardAt(browser, new URL('/service.html', srv.url).href, {
        width,
        height,
      });
      try {
        expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Service');
        const rows = await sectionRows(page, 'due');
        expect(rows.map((r) => [r.registration, r.status])).toEqual([
          ['BOTH', 'Overdue'],
          ['MONTHS', 'Due soon'],
          ['NOSERVICE', 'Unknown'],
          ['KM', 'OK'],
          ['NEW', 'OK'],
          ['RESET', 'OK'],
        ]);
        const by = Object.fromEntries(rows.map((r) => [r.registration, r]));
        expect(by.BOTH).toMatchObject({ km_remaining: '-1,200.0', reason: '1,200 km past the interval' });
        expect(by.MONTHS!.reason).toBe('5 days to the date');
        expect(by.NOSERVICE!.reason).toContain('no last service recorded');
        expect(by.NOSERVICE!.km_remaining).toBe('');
        expect(by.NEW!.km_per_day).toBe('');
        expect(by.KM!.km_since_service).toBe('4,900.0');
        expect(await page.locator('#table-due thead').textContent()).toContain('Remaining (km)');
        expect(await page.locator('td[data-col="status"] .badge-failed').count()).toBe(1);
        expect(await seriousAxeViolations(page)).toEqual([]);
        if (width < 500)
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        else await page.screenshot({ path: join(fx.dir, '..', `fleetsync-service-page-${process.pid}.png`) });
        expect(problems).toEqual([]);
      } finally {
        await ctx.close();
      }
    },
    120_000,
  );

  it('records a service from the page: a bad reading is refused in words, a good one makes BOTH ok', async () => {
    const { ctx, page, problems } = await openDashboardAt(browser, new URL('/service.html', srv.url).href, {
      width: 1280,
      height: 900,
    });
    try {
      const form = page.getByRole('form', { name: 'Record a service' });
      await form.getByLabel('Vehicle').fill('BOTH');
      await form.getByLabel('Day').fill('2026-07-18');
      await form.getByLabel('Odometer (km)').fill('1000');
      await form.getByRole('button', { name: 'Record' }).click();
      await expect
        .poll(() => form.getByRole('status').textContent())
        .toContain('below the 80000 km recorded at the earlier service on 2026-06-10');
      // …and far below BOTH's synced 96,200 km of 17 July: force would record it, so it is offered
      expect(await form.getByRole('status').textContent()).toContain(
        'far below the 96,200 km its synced odometer read at 2026-07-17 00:00',
      );
      const anyway = form.getByLabel('Record anyway', { exact: false });
      expect(await anyway.isVisible()).toBe(true);
      // KM recorded anyway at a reading its odometer contradicts: recorded, the note stays in view
      await form.getByLabel('Vehicle').fill('KM');
      await form.getByLabel('Day').fill('2026-07-05');
      await form.getByLabel('Odometer (km)').fill('12345');
      await anyway.check();
      await form.getByRole('button', { name: 'Record' }).click();
      await expect
        .poll(() => form.getByRole('status').textContent())
        .toContain('Recorded for KM. Note: recorded with force although the reading 12345');
      expect(await form.getByRole('status').textContent()).toContain(
        'the reading 12345 is far below the 53,000 km its synced odometer read at 2026-07-01 00:00',
      );
      await form.getByLabel('Vehicle').fill('BOTH');
      await form.getByLabel('Day').fill('2026-07-18');
      await form.getByLabel('Odometer (km)').fill('101300');
      await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name: 'Record' }).click()]);
      await page.waitForSelector('body[data-loading="false"]');
      const both = (await sectionRows(page, 'due')).find((r) => r.registration === 'BOTH');
      expect(both).toMatchObject({
        status: 'OK',
        last_service_day: '18 Jul 2026',
        km_since_service: '3,571.4',
      });
      // 400 in the console is the refusal the test asked for; nothing else
      expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});
