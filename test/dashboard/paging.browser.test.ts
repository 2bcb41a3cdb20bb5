/**
 * The JSON API sends a report one page at a time (1,000 rows unless `limit` says otherwise, with
 * `total` for all of them). The dashboard reads what must be whole page after page: the filter
 * bar lists every vehicle and department, and a chart sums every row of its report, not only the
 * table's first page. A fleet of 1,103 vehicles, 1,100 of them sorting before the fixture's.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { appendRows } from '../../src/store/write.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { reusedPage } from '../helpers/dashboard-page.ts';
import {
  ACCOUNT,
  APR_11,
  APR_START,
  NOW,
  ZONE,
  openFixture,
  refreshFixtureFacts,
  type FixtureDb,
} from '../helpers/report-fixture.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

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
  await refreshFixtureFacts(fx.con); // as the sync's commit would
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  await pages.close();
  await browser?.close();
  await srv?.close();
  fx?.close();
});

const RANGE = '?from=2026-03-01&to=2026-04-30';

/** One page for the file's tests (reusedPage). */
const pages = reusedPage(() => browser);
const open = (path: string) => pages.open(new URL(path, srv.url).href);

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
      await pages.release(page);
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
      expect(await page.locator('#table-mileage .pager-status').textContent()).toBe(
        `Rows 1–1,000 of ${rows.length.toLocaleString('en-US')}`,
      );
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  /** The registration and the distance (the bare number) of each row the table shows. */
  const shownRows = (page: Page) =>
    page.$$eval('#table-mileage tbody tr', (trs) =>
      trs.map((tr) => {
        const cell = (col: string) => {
          const i = Array.from(tr.closest('table')!.tHead!.rows[0]!.cells).findIndex(
            (th) => (th as HTMLElement).dataset.col === col,
          );
          return tr.children[i] as HTMLElement;
        };
        return [cell('registration').textContent, cell('distance_km').dataset.value ?? null];
      }),
    );
  const n = (x: number) => x.toLocaleString('en-US');

  it('the mileage table pages to its last row and back; the page size changes the pages', async () => {
    const rows = await mileageRows();
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      const status = page.locator('#table-mileage .pager-status');
      expect(await page.locator('#table-mileage .prev').isDisabled()).toBe(true);
      // every vehicle × month of the range is a row (issue 12), so the pages run to the last one
      const lastStart = Math.floor((rows.length - 1) / 1000) * 1000 + 1;
      for (let start = 1001; start <= lastStart; start += 1000) {
        await page.locator('#table-mileage .next').click();
        const end = Math.min(start + 999, rows.length);
        await expect.poll(() => status.textContent()).toBe(`Rows ${n(start)}–${n(end)} of ${n(rows.length)}`);
      }
      expect(await page.locator('#table-mileage .next').isDisabled()).toBe(true);
      // the last page ends with the report's last row
      const last = (await shownRows(page)).at(-1)!;
      const want = rows.at(-1)!;
      expect(last).toEqual([want.registration, want.distance_km === null ? null : String(want.distance_km)]);
      expect(await page.locator('#table-mileage tbody tr').count()).toBe(rows.length - (lastStart - 1));
      // the totals row stays the sum over every row, on every page
      const sum = Math.round(rows.reduce((a, r) => a + Number(r.distance_km ?? 0), 0) * 1000) / 1000;
      expect(
        Number(
          await page
            .locator('#table-mileage tr.totals td[data-col="distance_km"]')
            .getAttribute('data-value'),
        ),
      ).toBeCloseTo(sum, 3);
      // … of the rows with a value: the months never synced are blank, and the total says how many
      const unknown = rows.filter((r) => r.distance_km === null).length;
      expect(unknown, 'the range holds months never synced').toBeGreaterThan(0);
      expect(
        await page.locator('#table-mileage tr.totals td[data-col="distance_km"]').textContent(),
      ).toContain(`(${n(unknown)} blank)`);
      for (let start = lastStart - 1000; start >= 1; start -= 1000) {
        await page.locator('#table-mileage .prev').click();
        await expect
          .poll(() => status.textContent())
          .toBe(`Rows ${n(start)}–${n(start + 999)} of ${n(rows.length)}`);
      }
      await page.selectOption('#table-mileage select.page-size', '500');
      await expect.poll(() => status.textContent()).toBe(`Rows 1–500 of ${n(rows.length)}`);
      await page.locator('#table-mileage .next').click();
      await expect.poll(() => status.textContent()).toBe(`Rows 501–1,000 of ${n(rows.length)}`);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('Enter and Space on a header sort the whole result on the server and set aria-sort', async () => {
    const rows = await mileageRows();
    const km = rows.map((r) => r.distance_km).filter((v): v is number => typeof v === 'number');
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      const th = page.locator('#table-mileage th[data-col="distance_km"]');
      const asked = page.waitForRequest((r) => /sort=distance_km&dir=asc/.test(r.url()));
      await th.locator('button').focus();
      await page.keyboard.press('Enter');
      await asked;
      await expect.poll(() => th.getAttribute('aria-sort')).toBe('ascending');
      await expect.poll(async () => (await shownRows(page))[0]![1]).toBe(String(Math.min(...km)));
      await page.keyboard.press('Space');
      await expect.poll(() => th.getAttribute('aria-sort')).toBe('descending');
      await expect.poll(async () => (await shownRows(page))[0]![1]).toBe(String(Math.max(...km)));
      expect(await page.locator('#table-mileage .pager-status').textContent()).toBe(
        `Rows 1–1,000 of ${n(rows.length)}`,
      );
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('a failed load replaces the earlier table and chart with what failed and a retry', async () => {
    const { page } = await open(`/mileage.html${RANGE}`);
    try {
      expect(await page.locator('#table-mileage table').count()).toBe(1);
      await page.route('**/api/reports/**', (r) => r.abort());
      await page.selectOption('#f-vehicle', { label: 'ab 123 gp' });
      await expect
        .poll(() => page.locator('#table-mileage .failed p').textContent())
        .toBe(
          'Could not load Distance per vehicle and month (km): the fleetsync server did not answer (is it running, is the network up?).',
        );
      // nothing of the previous answer stays on the page as if it were this one's
      expect(await page.locator('#table-mileage table').count()).toBe(0);
      expect(await page.locator('#chart-mileage').isVisible()).toBe(false);
      // the page's banner follows the section's message (a separate step of the page): waited for
      await expect.poll(() => page.locator('#error').textContent()).toMatch(/^Could not load .*Retry$/);
      await page.unroute('**/api/reports/**');
      await page.locator('#table-mileage .failed button', { hasText: 'Retry' }).click();
      await expect.poll(() => page.locator('#table-mileage table').count()).toBe(1);
      expect(await page.locator('#error').isHidden()).toBe(true);
      expect(await page.locator('#chart-mileage').isVisible()).toBe(true);
      // the retried answer is the one for the filter that failed
      expect(new Set((await shownRows(page)).map((r) => r[0]))).toEqual(new Set(['ab 123 gp']));
    } finally {
      await pages.release(page);
    }
  });

  it('headers are labels with their unit; numbers keep the fixed decimals of their column', async () => {
    const { page } = await open(`/mileage.html${RANGE}`);
    try {
      const heads = await page.$$eval('#table-mileage thead th', (ths) =>
        ths.map((t) => [(t as HTMLElement).dataset.col, t.textContent]),
      );
      expect(heads).toContainEqual(['distance_km', 'Distance (km)']);
      expect(heads).toContainEqual(['period', 'Period']);
      expect(heads).toContainEqual(['excluded_periods', 'Windows left out']);
      // 1,000 m of an added vehicle: one fixed decimal
      // (its month without data is a row of its own now, so look across its rows)
      const rows = page.locator('#table-mileage tbody tr', { hasText: reg(0) });
      expect(await rows.locator('td[data-col="distance_km"][data-value="1"]').first().textContent()).toBe(
        '1.0',
      );
    } finally {
      await pages.release(page);
    }
  });
});
