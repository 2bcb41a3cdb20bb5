/**
 * The dashboard of an account without GET /vehicles/activity (404) whose subuser may not read
 * GET /drivers (403), synced over HTTP, in Chromium: the utilisation page says "Not available for
 * these credentials" above its figures and shows no 0 for the unknown hours; the data-quality page
 * names both endpoints; the mileage page, whose data the account can read, says nothing of it.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetClient } from '../../src/api/client.ts';
import type { RunningServer } from '../../src/server/start.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard, sectionRows } from '../helpers/dashboard-page.ts';
import { serveHarness } from '../helpers/harness-dashboard.ts';
import { syncRestrictedSubuser } from '../helpers/restricted.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
let h: Harness;
let sub: FleetClient;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  h = await startHarness({ fleet: { vehicles: 4, days: 10 } });
  sub = (await syncRestrictedSubuser(h)).client;
  srv = await serveHarness(h);
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await sub?.close();
  await h?.close();
});

const url = (page: string) => new URL(`${page}?from=${h.firstDay}&to=${h.lastDay}`, srv.url).href;

describe.skipIf(!haveChromium)('endpoints refused, on the dashboard', () => {
  it('utilisation says not available for these credentials, never 0 hours', async () => {
    const { page, problems } = await openDashboard(browser, url('utilisation.html'));
    try {
      const note = page.locator('#sec-tiles p.unavailable');
      await expect
        .poll(() => note.textContent())
        .toMatch(
          /^Not available: GET \/vehicles\/activity is not available on this account \(since \d{4}-\d\d-\d\d; activity not synced\)/,
        );
      const driving = (await page.textContent('#util-driving .value'))!.trim();
      expect(driving).not.toMatch(/^0/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the data-quality page names both endpoints; mileage has no such note', async () => {
    const { page, problems } = await openDashboard(browser, url('quality.html'));
    try {
      const items = page.locator('#endpoints-refused li');
      await expect.poll(() => items.count()).toBe(2);
      expect(await items.nth(0).getAttribute('data-endpoint')).toBe('GET /drivers');
      expect(await items.nth(0).textContent()).toMatch(
        /GET \/drivers is not permitted for these credentials \(HTTP 403 since/,
      );
      expect(await items.nth(1).textContent()).toMatch(
        /GET \/vehicles\/activity is not available on this account \(HTTP 404 since .*\): activity not synced\./,
      );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
    const m = await openDashboard(browser, url('mileage.html'));
    try {
      await m.page.waitForSelector('body[data-loading="false"]');
      expect(await m.page.locator('p.unavailable:visible').count()).toBe(0);
    } finally {
      await m.page.close();
    }
  });

  it('the runs page names the streams the last run skipped', async () => {
    const { page, problems } = await openDashboard(browser, new URL('runs.html', srv.url).href);
    try {
      await expect
        .poll(() => page.locator('#last-skipped').textContent())
        .toBe(
          ' · skipped (not permitted or not available for these credentials): drivers (GET /drivers), activity (GET /vehicles/activity)',
        );
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the runs table: the skipped streams read on one line, the counters as words, the row one line high', async () => {
    const { page, problems } = await openDashboard(browser, new URL('runs.html', srv.url).href);
    try {
      const cells = (await sectionRows(page, 'runs'))[0]!;
      expect(cells.skipped).toBe(
        'drivers (GET /drivers): not permitted; activity (GET /vehicles/activity): not available',
      );
      expect(cells.windows_by_stream).not.toMatch(/[{}"]/);
      expect(cells.windows_by_stream).toMatch(/^odometer \d+ done|; odometer \d+ done/);
      expect(cells.streams).toMatch(/, /);
      // one line high: the skipped cell's height is its text's line height (a list was one line each)
      const [height, line] = await page.$eval('#table-runs table', (t) => {
        const table = t as HTMLTableElement;
        const i = Array.from(table.tHead!.rows[0]!.cells).findIndex(
          (c) => (c as HTMLElement).dataset.col === 'skipped',
        );
        const td = table.tBodies[0]!.rows[0]!.cells[i]!;
        const span = td.querySelector('span') ?? td;
        return [span.getBoundingClientRect().height, parseFloat(getComputedStyle(span).lineHeight)];
      });
      expect(height).toBeLessThanOrEqual(line * 2.2);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
