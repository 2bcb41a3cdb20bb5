/**
 * The Scores page and the fuel efficiency sections of the Fuel page on a synced simulator fleet,
 * in Chromium at desk (1280 × 800) and phone (390 × 844) width: axe-core finds no serious or
 * critical violation, the phone page does not scroll sideways, the tables speak in labels, a
 * driver's name drills down to the trips behind the month's figures (their distance adds up to
 * the driver's), and the fuel efficiency tables show L/100 km.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboardAt, sectionRows, seriousAxeViolations } from '../helpers/dashboard-page.ts';
import { startHarnessDashboard, type HarnessDashboard } from '../helpers/harness-dashboard.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import type { Harness } from '../helpers/synced.ts';

const haveChromium = checkChromium();
let h: Harness;
let dash: HarnessDashboard;

beforeAll(async () => {
  if (!haveChromium) return;
  // The run's shared synced fleet of dashboard.browser and fuel-windows.int: no sync of its own.
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  // settings other than the defaults: the pages must state what this server computes with
  dash = await startHarnessDashboard(h, {
    FLEETSYNC_SCORE_WEIGHTS: 'braking=7,speeding_min=0.5',
    FLEETSYNC_SCORE_MIN_KM: '40',
    FLEETSYNC_FUEL_OUTLIER_PCT: '22',
  });
}, 240_000);
afterAll(async () => {
  await dash?.close();
  await h?.close();
});

const url = (path: string) => new URL(`/${path}`, dash.srv.url).href;

describe.skipIf(!haveChromium)('the Scores page and fuel efficiency', () => {
  it.each([
    ['scores.html', 1280, 800],
    ['scores.html', 390, 844],
    ['fuel.html', 1280, 800],
    ['fuel.html', 390, 844],
  ] as const)(
    '%s at %i × %i: no serious or critical axe violation, no sideways scroll',
    async (path, width, height) => {
      const { ctx, page, problems } = await openDashboardAt(
        dash.browser,
        url(`${path}?from=${h.firstDay}&to=${h.lastDay}`),
        { width, height },
      );
      try {
        expect(await seriousAxeViolations(page)).toEqual([]);
        if (width < 500)
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(problems).toEqual([]);
      } finally {
        await ctx.close();
      }
    },
  );

  it('shows scores by label and drills down from a driver to the trips behind the month', async () => {
    const ctx = await dash.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    try {
      await page.goto(url(`scores.html?from=${h.firstDay}&to=${h.lastDay}`));
      await page.waitForSelector('body[data-loading="false"]');
      const heads = await page.$$eval('#table-scores thead th', (ths) => ths.map((t) => t.textContent ?? ''));
      expect(heads.join('|')).toContain('Score (0–100)');
      expect(heads.join('|')).toContain('Harsh braking per 100 km');
      expect(heads).not.toContain('score');
      // the rule above the table is the one configured, not the defaults
      const note = (await page.textContent('#note-scores')) ?? '';
      expect(note).toContain('Score = 100 − (7 × harsh braking + 3 × harsh acceleration');
      expect(note).toContain('0.5 × speeding minutes');
      expect(note).toContain('at least 40 km');
      // a ranked driver of the report, by the JSON the page reads
      const report = await (
        await page.request.get(url(`api/reports/driver_scores?from=${h.firstDay}&to=${h.lastDay}&limit=1000`))
      ).json();
      const ranked = (report.rows as Record<string, unknown>[]).find((r) => r.rank === 1)!;
      expect(ranked).toBeDefined();
      const link = page.locator(
        `#table-scores a[href*="driver=${String(ranked.driver_id)}"][href*="month=${String(ranked.period)}"]`,
      );
      await Promise.all([page.waitForURL(/driver=/), link.first().click()]);
      await page.waitForSelector('body[data-loading="false"]');
      await page.waitForSelector('#table-trips table');
      const trips = await sectionRows(page, 'trips');
      expect(trips.length).toBe(ranked.trips);
      const km = trips.reduce((s, r) => s + Number(r.distance_km!.replace(/,/g, '')), 0);
      expect(km).toBeCloseTo(Number(ranked.distance_km), 0);
    } finally {
      await ctx.close();
    }
  });

  it('the Fuel page lists L/100 km per vehicle and per driver', async () => {
    const ctx = await dash.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    try {
      await page.goto(url(`fuel.html?from=${h.firstDay}&to=${h.lastDay}`));
      await page.waitForSelector('body[data-loading="false"]');
      const heads = await page.$$eval('#table-efficiency thead th', (ths) =>
        ths.map((t) => t.textContent ?? ''),
      );
      expect(heads).toContain('Fuel efficiency (L/100 km)');
      expect(await page.textContent('#note-efficiency')).toContain('more than 22 % above it');
      const rows = await sectionRows(page, 'efficiency');
      const known = rows.filter((r) => r.l_per_100km !== '');
      expect(known.length).toBeGreaterThan(0);
      for (const r of known) expect(Number(r.l_per_100km)).toBeGreaterThan(3);
      expect((await sectionRows(page, 'efficiency-drivers')).length).toBeGreaterThan(0);
    } finally {
      await ctx.close();
    }
  });
});
