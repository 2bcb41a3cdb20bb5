/**
 * Issue 25 in a real Chromium over the hand-filled database (vehicles 1 "ab 123 gp" Sales, 2
 * "cd 456 gp" Ops, 3 "=cmd()" @x; April 2026 synced): a vehicle / department pair that matches no
 * vehicle says "no vehicle matches" on the tiles, not "not synced"; the vehicle list follows the
 * department.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { startFixtureDashboard, type FixtureDashboard } from '../helpers/fixture-dashboard.ts';

const haveChromium = checkChromium();
let d: FixtureDashboard;

beforeAll(async () => {
  if (haveChromium) d = await startFixtureDashboard();
});
afterAll(async () => {
  await d?.close();
});

const open = (path: string) => openDashboard(d.browser, new URL(path, d.srv.url).href);
const APRIL = 'from=2026-04-01&to=2026-04-30';

describe.skipIf(!haveChromium)('honest at the edges (issue 25), in Chromium', () => {
  it('a vehicle outside the chosen department: every tile says "no vehicle matches", none "not synced"', async () => {
    const { page, problems } = await open(`/index.html?${APRIL}&vehicle=1&department=Ops`);
    try {
      const tiles = page.locator('#kpis [id^="kpi-"]');
      const text = (await tiles.allInnerTexts()).join('\n');
      expect(await page.locator('#kpi-coverage').innerText()).toContain('no vehicle matches');
      expect(await page.locator('#kpi-distance').innerText()).toContain('no vehicle matches');
      expect(await page.locator('#kpi-fuel').innerText()).toContain('no vehicle matches');
      expect(text).not.toContain('not synced');
      await page.screenshot({ path: '/tmp/honest-no-vehicle.png', fullPage: false });
      // the same vehicle in its own department: figures (April: 750 km for vehicle 1)
      await page.selectOption('#f-department', 'Sales');
      await page.waitForSelector('body[data-loading="false"]');
      await expect.poll(() => page.locator('#kpi-distance').innerText()).toContain('750');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('the vehicle list follows the department', async () => {
    const { page, problems } = await open(`/index.html?${APRIL}`);
    try {
      const listed = () =>
        page.locator('#f-vehicle option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).text));
      expect(await listed()).toEqual(['All vehicles', '=cmd()', 'ab 123 gp', 'cd 456 gp']);
      await page.selectOption('#f-department', 'Ops');
      expect(await listed()).toEqual(['All vehicles', 'cd 456 gp']);
      await page.selectOption('#f-vehicle', '2');
      // another department: vehicle 2 is not in it, so it is deselected
      await page.selectOption('#f-department', 'Sales');
      expect(await listed()).toEqual(['All vehicles', 'ab 123 gp']);
      expect(await page.locator('#f-vehicle').inputValue()).toBe('');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
