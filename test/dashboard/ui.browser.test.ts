/**
 * The dashboard as people read it, in real Chromium over the report fixture plus 17 vehicles
 * (20 in all): the coverage calendar shows every vehicle and every day of a 90-day range (1,800
 * cells, two API pages) with the vehicle column fixed while it scrolls; every page speaks in labels,
 * not column names or raw codes; axe-core finds no serious or critical violation on any page at
 * desktop (1400 × 900) and phone (390 × 844) sizes, and a phone page does not scroll sideways.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { appendRows } from '../../src/store/write.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import {
  openDashboardAt,
  reusedPage,
  seriousAxeViolations,
  type OpenedPage,
} from '../helpers/dashboard-page.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
const ADDED = 17;
// 1 Feb – 1 May 2026: 28 + 31 + 30 + 1 = 90 local days, all before the fixture's today (2 May).
const FROM = '2026-02-01';
const TO = '2026-05-01';
const PAGES = [
  'index.html',
  'mileage.html',
  'fuel.html',
  'tolls.html',
  'carpool.html',
  'quality.html',
  'runs.html',
  'utilisation.html',
  'sites.html',
  'drivers.html',
  'scores.html',
];

let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  await appendRows(
    fx.con,
    'vehicles',
    Array.from({ length: ADDED }, (_, i) => ({
      account: ACCOUNT,
      synced_at: NOW,
      vehicle_id: 500 + i,
      registration: `zz ${String(i).padStart(2, '0')}`,
      description: 'Fleet',
      fuel_canbus_consumed: false,
      fuel_canbus_level: false,
      fuel_analog_level: false,
      electric_battery: false,
      electric_charging: false,
    })),
  );
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  for (const p of desktopPages.values()) await (await p).ctx.close();
  await pages.close();
  await phone.close();
  await browser?.close();
  await srv?.close();
  fx?.close();
});

/** One page for the file's default-size tests, one at phone size for axe (reusedPage). */
const pages = reusedPage(() => browser);
const open = (path: string) => pages.open(new URL(path, srv.url).href);

const DESKTOP = { width: 1400, height: 900 };
/**
 * What axe leaves out at phone width: the after-hours table of utilisation.html shows 1,000
 * vehicle-day rows of one markup (14,000 elements; axe took 45 s on it at desktop width and 83 s
 * at phone width in a loaded suite). Axe reads every row at desktop width; at phone width, where
 * the page's layout is what changes, the table's first 100 rows and everything around it.
 */
const PHONE_AXE_EXCLUDE: Record<string, string[]> = {
  'utilisation.html': ['#table-after-hours tbody tr:nth-child(n+101)'],
};
const PHONE = { width: 390, height: 844 };
const phone = reusedPage(() => browser, { viewport: PHONE });
const RANGE = '?from=2026-03-01&to=2026-04-30';
/**
 * Each page over RANGE at desktop size, loaded once and read by the three tests that only read it
 * (labels, tiles, axe at desktop size): a page load costs seconds beside three other files.
 */
const desktopPages = new Map<string, Promise<OpenedPage & { ctx: BrowserContext }>>();
function desktop(path: string) {
  let p = desktopPages.get(path);
  if (!p)
    desktopPages.set(
      path,
      (p = openDashboardAt(browser, new URL(`/${path}${RANGE}`, srv.url).href, DESKTOP)),
    );
  return p;
}

describe.skipIf(!haveChromium)('the dashboard people read', () => {
  it('the coverage calendar shows all 20 vehicles × 90 days, each cell the report’s status', async () => {
    const def = requireReport('coverage');
    const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
    const all = await runReport(fx.con, def, scope, parseReportParams({ from: FROM, to: TO }, def, scope));
    expect(all.rows.length).toBe(20 * 90); // more than one API page (1,000 rows)
    const { page, problems } = await open(`/quality.html?from=${FROM}&to=${TO}`);
    try {
      const shown = await page.$$eval('#coverage-calendar tbody tr', (trs) =>
        trs.map((tr) => [
          (tr as HTMLElement).dataset.vehicle,
          Array.from(tr.querySelectorAll('td[data-status]')).map((td) => (td as HTMLElement).dataset.status),
        ]),
      );
      expect(shown.length).toBe(20);
      for (const [, cells] of shown) expect(cells).toHaveLength(90);
      const want = new Map<string, string[]>();
      for (const r of all.rows) {
        const k = String(r.vehicle_id);
        want.set(k, [...(want.get(k) ?? []), String(r.status)]);
      }
      expect(new Map(shown.map(([v, c]) => [v as string, c as string[]]))).toEqual(want);
      expect(await page.locator('#coverage-calendar thead tr:last-child th').count()).toBe(90);
      expect(await page.locator('#sec-coverage .cal-count').textContent()).toBe('20 vehicles × 90 days.');
      // scrolled to the far right, the vehicle column stays at the left edge of the box
      const box = page.locator('#sec-coverage .scroll');
      const before = (await page.locator('#coverage-calendar tbody th.cal-vehicle').first().boundingBox())!;
      await box.evaluate((el) => (el.scrollLeft = el.scrollWidth));
      expect(await box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(100);
      const after = (await page.locator('#coverage-calendar tbody th.cal-vehicle').first().boundingBox())!;
      expect(Math.abs(after.x - before.x)).toBeLessThan(1.5);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it.each(PAGES)('%s: headers are labels, times are written as people write them', async (path) => {
    const { page, problems } = await desktop(path);
    const heads = await page.$$eval('table.report thead th', (ths) =>
      ths.map((t) => [(t as HTMLElement).dataset.col, t.textContent]),
    );
    expect(heads.length, path).toBeGreaterThan(0);
    // no header is a column name: snake_case names such as distance_km never show
    for (const [col, text] of heads) expect(text, col).not.toMatch(/_|^[a-z]/);
    const cells = await page.$$eval('table.report tbody td', (tds) => tds.map((td) => td.textContent ?? ''));
    for (const c of cells) {
      expect(c).not.toMatch(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/); // an ISO time
      expect(c).not.toMatch(/^BOOKING_STATUS_|^SETUP_/); // a raw code
    }
    expect(problems).toEqual([]);
  });

  it.each(PAGES)('%s: tiles, status lines and titles read as people write too', async (path) => {
    const { page, problems } = await desktop(path);
    const text = await page.evaluate(() => document.body.innerText);
    // outside the tables too (the freshness tile's last run, the runs page's status line)
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/);
    expect(text).not.toMatch(/months \d{4}-\d{2}/); // the tiles' whole months: 'months Mar 2026 to Apr 2026'
    // litres are L: a lowercase l reads like 1
    expect(text).not.toMatch(/\(l\)|\d l\b/);
    // tiles keep their decimals: "414.0 h" beside "3,119.6 h", "15,827.00 AUD" beside "41,357.42 AUD"
    const tiles = await page.$$eval('.tile .value', (vs) => vs.map((v) => v.textContent ?? ''));
    for (const t of tiles) {
      if (/ (h|km|L)$/.test(t)) expect(t, path).toMatch(/\.\d (h|km|L)$/);
      if (/ AUD$/.test(t)) expect(t, path).toMatch(/\.\d\d AUD$/);
      if (/%/.test(t)) expect(t, path).toMatch(/\.\d %/);
    }
    // charts: a ranking names every bar; category labels and legends are labels, not codes
    const charts = await page.$$eval('canvas', (cs) =>
      cs.map((c) => {
        type Ch = {
          data: { labels: string[] };
          options: { indexAxis?: string };
          scales: Record<string, { ticks: { label: string | string[] }[]; axis: string; type: string }>;
          legend?: { legendItems?: { text: string }[] };
        };
        const ch = (
          globalThis as unknown as { Chart: { getChart(c: HTMLCanvasElement): Ch | undefined } }
        ).Chart.getChart(c as HTMLCanvasElement);
        if (!ch) return null;
        const cat = Object.values(ch.scales).find((s) => s.type === 'category');
        return {
          id: c.id,
          horizontal: ch.options.indexAxis === 'y',
          labels: ch.data.labels.length,
          ticks: cat ? cat.ticks.map((t) => String(t.label)) : [],
          legend: (ch.legend?.legendItems ?? []).map((i) => i.text),
        };
      }),
    );
    for (const c of charts) {
      if (!c) continue;
      if (c.horizontal) expect(c.ticks.length, c.id).toBe(c.labels);
      for (const t of [...c.ticks, ...c.legend]) {
        expect(t, c.id).not.toMatch(/^BOOKING_STATUS_|^SETUP_/);
        expect(t, c.id).not.toMatch(/^\d{4}-\d{2}$/); // a month is "Mar 2026"
      }
    }
    expect(problems).toEqual([]);
  });

  it('the overview over a month never synced: every tile "not synced", no 0 anywhere in them', async () => {
    const { page, problems } = await open('/index.html?from=2025-06-01&to=2025-06-30');
    try {
      expect(await page.textContent('#kpi-coverage')).toBe('not synced: 0 of 30 days synced');
      for (const id of ['distance', 'fuel', 'tolls', 'late'])
        expect(await page.textContent(`#kpi-${id} .value`), id).toBe('not synced');
      expect(await page.textContent('#kpi-late .sub')).toBe('bookings not synced');
      expect(await page.textContent('#kpi-tolls .sub')).toMatch(/^trips not synced, /);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('the utilisation tiles sit side by side at desktop width, like the overview tiles', async () => {
    const { page, problems } = await open(`/utilisation.html${RANGE}`);
    try {
      const tops = await page.$$eval('#sec-tiles .tile', (ts) =>
        ts.map((t) => t.getBoundingClientRect().top),
      );
      expect(tops.length).toBe(4);
      expect(new Set(tops).size).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it.each(
    PAGES.flatMap((p) => [
      [p, DESKTOP.width, DESKTOP.height] as const,
      [p, PHONE.width, PHONE.height] as const,
    ]),
  )(
    '%s at %i × %i: no serious or critical axe violation',
    async (path, width, _height) => {
      // axe needs a page of a browser context (not browser.newPage()): at desktop size, the one the
      // tests above read; at phone size, the file's one phone page, loaded again per page
      const atDesktop = width === DESKTOP.width;
      const { page, problems } = await (atDesktop
        ? desktop(path)
        : phone.open(new URL(`/${path}${RANGE}`, srv.url).href));
      try {
        expect(await seriousAxeViolations(page, atDesktop ? [] : (PHONE_AXE_EXCLUDE[path] ?? []))).toEqual(
          [],
        );
        if (!atDesktop) {
          // the page itself does not scroll sideways: wide tables scroll in their own box
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        }
        expect(problems).toEqual([]);
      } finally {
        if (atDesktop) {
          const opened = desktop(path);
          desktopPages.delete(path);
          await (await opened).ctx.close();
        } else await phone.release(page);
      }
    },
    // axe on utilisation.html (1,000 vehicle-day rows, 14,000 elements) took 58–85 s at load 20–30
    120_000,
  );
});
