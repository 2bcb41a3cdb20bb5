/**
 * The Sites page on a synced simulator fleet, in Chromium: the activity table shows each site's
 * visits per day as the site_activity report counts them, a site-day drills down to its visits
 * (site=…&day=… in the URL) whose table and CSV download hold exactly the simulator's visits of
 * that site and day, and both reports download as CSV and XLSX.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDate } from '../../src/time.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import {
  downloadCsv as download,
  startSyncedDashboard,
  type SyncedDashboard,
} from '../helpers/synced-dashboard.ts';

const haveChromium = checkChromium();
let dash: SyncedDashboard;

beforeAll(async () => {
  if (!haveChromium) return;
  // the fleet of utilisation.browser.test.ts: one synced database for both
  dash = await startSyncedDashboard({ vehicles: 12, days: 40 });
  expect(dash.first.outcome).toBe('ok');
}, 120_000);
afterAll(() => dash?.close());

/** A link's absolute address. */
const hrefOf = (page: Page, id: string) => page.$eval(`#${id}`, (a) => (a as HTMLAnchorElement).href);

describe.skipIf(!haveChromium)('sites page', () => {
  it('a site-day of the activity table drills down to exactly its visits; both reports download as CSV and XLSX', async () => {
    const { h, srv, browser } = dash;
    const zone = h.fleet.timezone;
    const toll = new Set(h.fleet.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));
    // the busiest site-day of the simulator's history
    const counts = new Map<string, number>();
    for (const v of h.fleet.truth.visits(h.fleet.startMs, h.fleet.endMs))
      if (!toll.has(v.geofence_id)) {
        const k = `${v.geofence_id}|${localDate(v.enter_ms, zone)}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    const [key, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const [site, day] = key.split('|') as [string, string];
    expect(n).toBeGreaterThan(1);

    const { page, problems } = await openDashboard(
      browser,
      new URL(`sites.html?from=${day}&to=${day}`, srv.url).href,
      { acceptDownloads: true },
    );
    try {
      const name = h.fleet.geofences.find((g) => g.geofence_id === site)!.name;
      const row = page.locator('#table-activity tbody tr', { hasText: name });
      expect(await row.locator('td[data-col="visits"]').textContent()).toBe(String(n));
      const activity = await download(page, 'csv-activity');
      expect(activity.find((r) => r.geofence_id === site)?.visits).toBe(String(n));
      for (const id of ['xlsx-activity', 'xlsx-site-hours']) {
        const res = await page.request.get(await hrefOf(page, id));
        expect(res.status(), id).toBe(200);
        expect((await res.body()).subarray(0, 2).toString(), id).toBe('PK');
      }

      await row.locator('td[data-col="visits"] a').click();
      await page.waitForSelector('body[data-loading="false"]');
      expect(new URL(page.url()).searchParams.get('site')).toBe(site);
      expect(await page.locator('#sec-activity').isHidden()).toBe(true);
      const truth = h.fleet.truth
        .visits(h.fleet.startMs, h.fleet.endMs)
        .filter((v) => v.geofence_id === site && localDate(v.enter_ms, zone) === day);
      expect(await page.locator('#table-visits tbody tr').count()).toBe(truth.length);
      const visits = await download(page, 'csv-visits');
      expect(visits.map((r) => `${r.vehicle_id}|${Date.parse(r.enter_time!)}`).sort()).toEqual(
        truth.map((v) => `${v.vehicle_id}|${v.enter_ms}`).sort(),
      );
      for (const r of visits) expect(r.site).toBe(name);
      const xlsx = await page.request.get(await hrefOf(page, 'xlsx-visits'));
      expect(xlsx.status()).toBe(200);
      expect((await xlsx.body()).subarray(0, 2).toString()).toBe('PK');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
