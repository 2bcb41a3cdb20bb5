/**
 * Issue 25 in a real Chromium over the hand-filled database (vehicles 1 "ab 123 gp" Sales, 2
 * "cd 456 gp" Ops, 3 "=cmd()" @x; April 2026 synced): a vehicle / department pair that matches no
 * vehicle says "no vehicle matches" on the tiles, not "not synced"; the vehicle list follows the
 * department; while the last run failed, every page shows a banner with the status verdict's line
 * and a link to the runs page, whose summary and failed row show the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard, sectionRows } from '../helpers/dashboard-page.ts';
import { startFixtureDashboard, type FixtureDashboard } from '../helpers/fixture-dashboard.ts';
import { ACCOUNT, APR_START, MAY_START } from '../helpers/report-fixture.ts';

const haveChromium = checkChromium();
let d: FixtureDashboard;

/** What stopped the last run (run-3, failed), as the sync records it, and nine failed windows. */
const STOP = 'HTTP 401 on /vehicles: Unauthorized (check FLEET_USERNAME/FLEET_PASSWORD and the region)';
const ERRORS = [
  { stream: '*', scope: '*', window: '*', reason: STOP },
  ...Array.from({ length: 9 }, (_, i) => ({ stream: 'odometer', scope: String(i + 1), reason: 'HTTP 401' })),
];

beforeAll(async () => {
  if (!haveChromium) return;
  d = await startFixtureDashboard(async (fx) => {
    // the fixture's last run (run-2) was partial; here a later one failed
    await fx.con.run(
      `INSERT INTO runs (run_id, account, started_at, ended_at, outcome, trigger, requests, errors)
       VALUES ('run-3', $1, '2026-05-01T22:00:00Z', '2026-05-01T22:00:05Z', 'failed', 'schedule', 1, $2::JSON)`,
      [ACCOUNT, JSON.stringify(ERRORS)],
    );
    // April's trips synced (fleet-wide): t1 (driver @x) and t2 (no driver), 12.345 km each
    await fx.con.run(
      `INSERT INTO ledger (account, stream, scope, window_start, window_end, status, fetched_at, run_id)
       VALUES ($1, 'trips', '*', to_timestamp($2 / 1000.0), to_timestamp($3 / 1000.0), 'done', now(), 'run-2')`,
      [ACCOUNT, APR_START, MAY_START],
    );
  });
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
      // the cost tiles too (their own report has no row for such a filter)
      for (const id of ['fuel-cost', 'toll-charges', 'co2'])
        expect(await page.locator(`#kpi-${id}`).innerText(), id).toContain('no vehicle matches');
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

  const LINE = `account ${ACCOUNT}: the last run run-3 failed: ${STOP}`;

  it('the last run failed: every page shows a banner with the status line and a link to the runs page', async () => {
    for (const path of ['index.html', 'mileage.html', 'drivers.html', 'quality.html']) {
      const { page, problems } = await open(`/${path}?${APRIL}`);
      try {
        const banner = page.locator('#run-banner');
        expect(await banner.isVisible(), path).toBe(true);
        expect(await banner.locator('strong').innerText()).toBe('The last sync failed.');
        // the same words as `fleetsync status` (its verdict), and what to do
        expect(await banner.locator('li').allInnerTexts()).toContain(LINE);
        expect(await banner.innerText()).toContain('then Sync now on the Sync runs page');
        if (path === 'mileage.html') {
          await banner.locator('a', { hasText: 'Sync runs' }).click();
          await page.waitForURL(/runs\.html/);
          await page.waitForSelector('body[data-loading="false"]');
          expect(await page.locator('#run-banner').isVisible()).toBe(true);
        }
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });

  it('the runs page: the summary names the reason and what to do; the failed row shows it, in view', async () => {
    const { page, problems } = await open('/runs.html');
    try {
      const why = page.locator('#last-run-problem');
      expect(await why.innerText()).toContain(LINE);
      expect(await why.innerText()).toContain('Fix what the reason names');
      const row = page.locator('#table-runs tbody tr', { hasText: 'run-3' });
      const reason = row.locator('.run-reason');
      expect(await reason.innerText()).toBe(STOP);
      // in the first screen width, not in a column off to the right
      const box = (await reason.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
      // ten errors: three listed and the rest counted, so the row stays a row
      const items = await row.locator('ul.cell-list li').allInnerTexts();
      expect(items).toHaveLength(4);
      expect(items[3]).toBe('… and 7 more (the CSV has them all)');
      expect((await row.boundingBox())!.height).toBeLessThan(200);
      // the partial run before it says why too (no errors recorded: only the badge)
      expect(
        await page.locator('#table-runs tbody tr', { hasText: 'run-2' }).locator('.run-reason').count(),
      ).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('drivers: a "no driver recorded" row and the share of the distance attributed', async () => {
    const { page, problems } = await open(`/drivers.html?${APRIL}`);
    try {
      // 12.345 km with a driver of 24.69 km in all: 50.0 %
      expect(await page.locator('#drivers-attributed').innerText()).toBe(
        '50.0 % of the fleet’s trip distance is attributed to a driver (12.3 km of 24.7 km); the rest, 12.3 km, is in the “no driver recorded” rows.',
      );
      const row = page.locator('#table-drivers tbody tr', { hasText: 'no driver recorded' });
      expect(await row.count()).toBe(1);
      expect(await row.innerText()).toContain('12.3');
      // a driver no name is known for (trip t1's '@x': no driver list names it) reads as the
      // id, never a blank Driver cell; every row as the report's JSON has it
      const cells = (await sectionRows(page, 'drivers')).map((r) => r.driver_name);
      expect(cells).toContain('@x (no name known)');
      const res = await fetch(new URL(`/api/reports/drivers?${APRIL}`, d.srv.url));
      const { rows } = (await res.json()) as {
        rows: { driver_id: string | null; driver_name: string | null }[];
      };
      expect(cells).toEqual(
        rows.map((r) =>
          r.driver_id !== null && r.driver_name === null ? `${r.driver_id} (no name known)` : r.driver_name,
        ),
      );
      expect(cells).not.toContain('');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
