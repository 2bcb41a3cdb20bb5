/**
 * The dashboard in a real Chromium (playwright-core, the Debian binary): every page draws its
 * charts from the report API, the filter bar drives charts and download links, every section's
 * download works, the mileage drill-down reaches the windows and trips behind a month's number,
 * the API-change banner goes away on Acknowledge, and the runs page shows the scheduler's next run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { formatLocal } from '../../src/time.ts';
import {
  ACCOUNT,
  NOW,
  ZONE,
  markFleetStreamsSynced,
  openFixture,
  parseCsv,
  type FixtureDb,
} from '../helpers/report-fixture.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { runSync } from '../../src/sync/run.ts';
import { formatIsoInZone, localDate } from '../../src/time.ts';
import { asPeopleWrite, downloaded, monthText, reusedPage, sectionRows } from '../helpers/dashboard-page.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT as SYNCED_ACCOUNT, type Harness } from '../helpers/synced.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();

let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  // the fixture's trips and toll visits as a sync leaves them: their days settled
  await markFleetStreamsSynced(fx.con);
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await sharedChromium();
});
afterAll(async () => {
  await pages.close();
  await browser?.close();
  await srv?.close();
  fx?.close();
});

/** One page for the file's tests (reusedPage); the runs-page clock test opens its own. */
const pages = reusedPage(() => browser, { acceptDownloads: true });
const open = (path: string, base = srv.url) => pages.open(new URL(path, base).href);

const chartData = (page: Page, id: string) =>
  page.evaluate((cid) => {
    const c = document.getElementById(cid) as HTMLCanvasElement;
    const ch = (
      globalThis as unknown as { Chart: { getChart(c: HTMLCanvasElement): { data: unknown } } }
    ).Chart.getChart(c);
    return JSON.parse(JSON.stringify(ch?.data ?? null)) as {
      labels: string[];
      datasets: { label: string; data: number[] }[];
    };
  }, id);

const RANGE = '?from=2026-03-01&to=2026-04-30';
describe.skipIf(!haveChromium)('dashboard in Chromium', () => {
  it.each([
    ['index.html', ['chart-trend', 'chart-top']],
    ['mileage.html', ['chart-mileage']],
    ['fuel.html', ['chart-fuel']],
    ['tolls.html', ['chart-gantries', 'chart-per-day']],
    ['carpool.html', ['chart-departments', 'chart-status']],
    ['quality.html', []],
    ['runs.html', []],
  ])('%s draws its charts without errors', async (path, charts) => {
    const { page, problems } = await open(`/${path}${RANGE}`);
    try {
      expect(await page.locator('#error').isHidden()).toBe(true);
      for (const id of charts) {
        const d = await chartData(page, id);
        expect(d, id).not.toBeNull();
        expect(d.labels.length, id).toBeGreaterThan(0);
      }
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('tolls: the per-day chart counts every passage of the range (SQL), not the rows of a page', async () => {
    const { page } = await open(`/tolls.html${RANGE}`);
    try {
      const perDay = await chartData(page, 'chart-per-day');
      const sum = perDay.datasets[0]!.data.reduce((a, b) => a + b, 0);
      const api = (await (await fetch(new URL(`/api/reports/tolls${RANGE}&limit=1`, srv.url))).json()) as {
        total: number;
      };
      expect(api.total).toBe(3);
      expect(sum).toBe(api.total);
      const gantries = await chartData(page, 'chart-gantries');
      expect(gantries.datasets[0]!.data.reduce((a, b) => a + b, 0)).toBe(api.total);
    } finally {
      await pages.release(page);
    }
  });

  it('overview: KPI tiles and the top-vehicles chart show the report numbers', async () => {
    const { page } = await open(`/index.html${RANGE}`);
    try {
      // March + April: vehicle 1 1000 + 750 km, vehicle 2 42 + 0 km.
      expect(await page.locator('#kpi-distance .value').textContent()).toBe('1,792.0 km'); // fixed decimals
      expect(await page.locator('#kpi-tolls .value').textContent()).toBe('3');
      // The last complete local day, inclusive (complete_through is 12 Apr 00:00: 11 Apr is complete).
      // said once (not "complete through 11 Apr 2026 (local)" above "2026-04-11")
      expect(await page.locator('#kpi-fresh .value').textContent()).toBe('11 Apr 2026');
      expect(await page.locator('#kpi-fresh .label').textContent()).toBe('Complete through (local day)');
      const top = await chartData(page, 'chart-top');
      expect(top.labels.slice(0, 2)).toEqual(['ab 123 gp', 'cd 456 gp']);
      expect(top.datasets[0]!.data.slice(0, 2)).toEqual([1750, 42]);
    } finally {
      await pages.release(page);
    }
  });

  it('changing the filter redraws the chart and changes the download link', async () => {
    const { page } = await open(`/mileage.html${RANGE}`);
    try {
      expect((await chartData(page, 'chart-mileage')).datasets[0]!.data).toEqual([1042, 750]);
      const before = await page.locator('#csv-mileage').getAttribute('href');
      await page.selectOption('#f-vehicle', '2');
      await page.waitForSelector('body[data-loading="false"]');
      await expect
        .poll(async () => (await chartData(page, 'chart-mileage')).datasets[0]!.data)
        .toEqual([42, 0]);
      const after = await page.locator('#csv-mileage').getAttribute('href');
      expect(after).not.toBe(before);
      expect(after).toContain('vehicle=2');
      // the totals row ties to the rows
      expect(await page.locator('#table-mileage tr.totals td[data-col="distance_km"]').textContent()).toBe(
        '42.0',
      );
      await page.selectOption('#f-preset', 'last_month');
      await page.waitForSelector('body[data-loading="false"]');
      await expect.poll(() => page.locator('#csv-mileage').getAttribute('href')).toContain('from=2026-04-01');
    } finally {
      await pages.release(page);
    }
  });

  it('a downloaded CSV equals the export of the same filter', async () => {
    const { page } = await open(`/tolls.html?from=2026-04-01&to=2026-04-30&vehicle=1`);
    try {
      const got = await downloaded(page, '#csv-tolls');
      const def = requireReport('tolls');
      const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
      const params = parseReportParams({ from: '2026-04-01', to: '2026-04-30', vehicle: '1' }, def, scope);
      const out = join(fx.dir, 'tolls-export.csv');
      const res = await exportReport(fx.con, def, scope, params, 'csv', out);
      expect(res.rows).toBe(1);
      expect(got.equals(readFileSync(out))).toBe(true);
    } finally {
      await pages.release(page);
    }
  });

  it('the coverage calendar colours synced, flagged, incomplete and missing days', async () => {
    const { page } = await open('/quality.html?from=2026-04-10&to=2026-04-12');
    try {
      const cells = await page.$$eval('#coverage-calendar tbody tr', (rows) =>
        rows.map((r) => [
          (r as HTMLElement).dataset.vehicle,
          Array.from(r.querySelectorAll('td[data-status]')).map((td) => (td as HTMLElement).dataset.status),
        ]),
      );
      expect(cells).toEqual([
        ['3', ['missing', 'missing', 'missing']],
        ['1', ['synced', 'flagged', 'synced']],
        ['2', ['synced', 'flagged', 'incomplete']],
      ]);
    } finally {
      await pages.release(page);
    }
  });
  it('the coverage calendar names the months of its days', async () => {
    const { page, problems } = await open('/quality.html?from=2026-03-30&to=2026-04-02');
    try {
      const months = await page.$$eval('#coverage-calendar thead th.cal-month', (ths) =>
        ths.map((t) => [
          t.textContent,
          (t as HTMLTableCellElement).colSpan,
          (t as HTMLElement).dataset.month,
        ]),
      );
      expect(months).toEqual([
        ['Mar 2026', 2, '2026-03'],
        ['Apr 2026', 2, '2026-04'],
      ]);
      // the day row below still numbers the days; 1 April starts its month's column group
      const days = await page.$$eval('#coverage-calendar thead tr:last-child th', (ths) =>
        ths.map((t) => [t.textContent, t.className]),
      );
      expect(days).toEqual([
        ['30', 'month-start'],
        ['31', ''],
        ['01', 'month-start'],
        ['02', ''],
      ]);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  async function downloadMatchesExport(
    page: Page,
    linkId: string,
    report: string,
    raw: Record<string, string>,
  ) {
    const got = await downloaded(page, `#${linkId}`);
    const def = requireReport(report);
    const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
    const out = join(fx.dir, `${report}-export.csv`);
    await exportReport(fx.con, def, scope, parseReportParams(raw, def, scope), 'csv', out);
    expect(got.equals(readFileSync(out))).toBe(true);
    return parseCsv(got.toString('utf8').replace(/^\uFEFF/, '')).filter((r) => r.length > 1);
  }

  it('mileage: the left-out table lists exactly the flagged odometer windows, no fuel window', async () => {
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      const rows = await sectionRows(page, 'excluded');
      expect(rows.map((r) => [r.registration, r.window_start, r.reason])).toEqual([
        ['ab 123 gp', '11 Apr 2026, 00:00', 'odometer reset'],
        ['cd 456 gp', '11 Apr 2026, 00:00', 'tracker changed'],
      ]);
      const codes = await page.$$eval('#table-excluded tbody td[data-col="reason"][data-code]', (tds) =>
        tds.map((td) => [(td as HTMLElement).dataset.code, (td as HTMLElement).title]),
      );
      expect(codes).toEqual([
        ['odometer_reset', 'code: odometer_reset'],
        ['terminal_has_changed', 'code: terminal_has_changed'],
      ]);
      const flagged = (
        await fx.con.runAndReadAll(
          `SELECT count(*)::INTEGER FROM odometer_windows o JOIN ledger l ON l.stream = 'odometer'
             AND l.scope = o.vehicle_id::VARCHAR AND l.window_start = o.window_start AND l.status = 'flagged'
           WHERE o.odometer_reset OR o.terminal_has_changed`,
        )
      ).getRows()[0]![0];
      expect(rows.length).toBe(flagged);
      expect(rows.some((r) => /fuel/.test(Object.values(r).join(' ')))).toBe(false);
      expect(Object.keys(rows[0]!)).not.toContain('counter_start_l');
      // the section's CSV holds the same windows as the table
      const [header, ...csv] = await downloadMatchesExport(
        page,
        'csv-excluded',
        'excluded_odometer_windows',
        {
          from: '2026-03-01',
          to: '2026-04-30',
        },
      );
      expect(header).not.toContain('stream');
      // the download keeps the codes integrations read; the table shows their labels
      expect(csv.map((r) => r[header!.indexOf('reason')])).toEqual(codes.map(([code]) => code));
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('fuel: the left-out table lists only fuel-counter windows whose counter went down', async () => {
    const { page, problems } = await open(`/fuel.html${RANGE}`);
    try {
      const rows = await sectionRows(page, 'excluded');
      expect(rows.map((r) => [r.registration, r.reason, r.counter_start_l, r.counter_end_l])).toEqual([
        ['ab 123 gp', 'counter went down', '170.0', '5.0'],
      ]);
      // the page states the rule the numbers follow: a missing reading is left out too
      expect(await page.locator('#sec-fuel p.note').textContent()).toMatch(
        /counter went down, or that lacks a reading at either end, is left out/,
      );
      const down = (
        await fx.con.runAndReadAll(
          'SELECT count(*)::INTEGER FROM fuel_consumed WHERE counter_end_l < counter_start_l',
        )
      ).getRows()[0]![0];
      expect(rows.length).toBe(down);
      const [header, ...csv] = await downloadMatchesExport(page, 'csv-excluded', 'excluded_fuel_windows', {
        from: '2026-03-01',
        to: '2026-04-30',
      });
      expect(csv.map((r) => r[header!.indexOf('reason')])).toEqual(['fuel_counter_went_down']);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('drills down fleet → vehicle → month → the windows and trips behind the number', async () => {
    const { page, problems } = await open(`/mileage.html${RANGE}`);
    try {
      expect(await page.locator('#sec-windows').isHidden()).toBe(true);
      // fleet → vehicle: the registration is a link that sets the vehicle filter
      await page.locator('#table-mileage tbody a.drill', { hasText: 'ab 123 gp' }).first().click();
      await page.waitForURL(/vehicle=1/);
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#f-vehicle').inputValue()).toBe('1');
      expect((await chartData(page, 'chart-mileage')).datasets[0]!.data).toEqual([1000, 750]);
      expect(await page.locator('#breadcrumb').textContent()).toBe('Fleet › ab 123 gp');
      // vehicle → month: the period is a link to the windows and trips behind it
      const april = page.locator('#table-mileage tbody tr', { hasText: 'Apr 2026' });
      const monthKm = await april.locator('td[data-col="distance_km"]').getAttribute('data-value');
      expect(monthKm).toBe('750');
      await april.locator('a.drill', { hasText: 'Apr 2026' }).click();
      await page.waitForURL(/month=2026-04/);
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#breadcrumb').textContent()).toBe('Fleet › ab 123 gp › Apr 2026');
      expect(await page.locator('#sec-windows h2 .title').textContent()).toBe(
        'Odometer windows behind ab 123 gp in Apr 2026',
      );
      const windows = await page.$$eval('#table-windows tbody tr', (rows) =>
        rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)),
      );
      const head = await page.$$eval('#table-windows thead th', (ths) =>
        ths.map((t) => (t as HTMLElement).dataset.col),
      );
      const col = (name: string) => windows.map((r) => r[head.indexOf(name)]);
      expect(col('window_start')).toEqual(['1 Apr 2026, 00:00', '11 Apr 2026, 00:00', '12 Apr 2026, 00:00']);
      expect(col('counted')).toEqual(['Yes', 'No', 'Yes']);
      expect(col('reason')).toEqual(['', 'odometer reset', '']);
      // hours with the column's one fixed decimal, and no total: a sum of window lengths means nothing
      expect(col('span_h')).toEqual(['241.0', '24.0', '456.0']);
      expect(await page.locator('#table-windows tr.totals td[data-col="span_h"]').count()).toBe(0);
      // the windows' counted km add up to the month's distance
      expect(
        await page.locator('#table-windows tr.totals td[data-col="counted_km"]').getAttribute('data-value'),
      ).toBe(monthKm);
      // the trips of that vehicle-month
      expect(
        await page.$$eval('#table-trips tbody tr', (rows) =>
          rows.map((r) => (r as HTMLTableRowElement).cells[0]!.textContent),
        ),
      ).toEqual(['t1']);
      // the windows download as their own CSV, equal to the export of the same drill-down
      const href = await page.locator('#csv-windows').getAttribute('href');
      expect(href).toBe('/api/reports/mileage_windows.csv?vehicle=1&month=2026-04');
      const got = await downloaded(page, '#csv-windows');
      const def = requireReport('mileage_windows');
      const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
      const out = join(fx.dir, 'windows-export.csv');
      await exportReport(
        fx.con,
        def,
        scope,
        parseReportParams({ vehicle: '1', month: '2026-04' }, def, scope),
        'csv',
        out,
      );
      expect(got.equals(readFileSync(out))).toBe(true);
      const [header, ...rows] = parseCsv(got.toString('utf8').replace(/^\uFEFF/, ''));
      const counted = header!.indexOf('counted_km');
      expect(rows.filter((r) => r.length > 1).reduce((a, r) => a + Number(r[counted]), 0)).toBe(750);
      // back up one level through the breadcrumb, then a filter change leaves the drill-down
      await page.locator('#breadcrumb a', { hasText: 'ab 123 gp' }).click();
      await page.waitForURL((u) => !u.search.includes('month='));
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#sec-windows').isHidden()).toBe(true);
      await page.goto(new URL(`/mileage.html${RANGE}&vehicle=1&month=2026-03`, srv.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#sec-windows').isVisible()).toBe(true);
      await page.selectOption('#f-preset', 'last_month');
      await page.waitForSelector('body[data-loading="false"]');
      await expect.poll(() => page.locator('#sec-windows').isHidden()).toBe(true);
      expect(page.url()).not.toContain('month=');
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it.each([
    'index.html',
    'mileage.html',
    'fuel.html',
    'tolls.html',
    'carpool.html',
    'quality.html',
    'runs.html',
  ])('%s: every section downloads as CSV, XLSX and Parquet', async (path) => {
    const { page } = await open(`/${path}${RANGE}&vehicle=1&month=2026-04`);
    try {
      const links = await page.$$eval('section:not([hidden]) h2 a.csv', (as) =>
        as.map((a) => [a.id, (a as HTMLAnchorElement).href]),
      );
      const sections = await page.locator('section:not([hidden])').count();
      expect(links.length).toBe(3 * sections);
      for (const [id, href] of links) {
        if (id!.startsWith('xlsx-')) {
          // the XLSX route is its own work (issue 14 item 2): here the link asks for the same query
          const csv = links.find(([i]) => i === id!.replace('xlsx-', 'csv-'))![1]!;
          expect(href, id).toBe(csv.replace('.csv?', '.xlsx?'));
          continue;
        }
        const res = await page.request.get(href!);
        expect(res.status(), `${id} ${href}`).toBe(200);
        const type = res.headers()['content-type'];
        if (id!.startsWith('csv-')) {
          expect(type, id).toMatch(/^text\/csv/);
          expect((await res.text()).split('\n')[0], id).toMatch(/^\uFEFF[a-z_]+(,[a-z_0-9]+)*\r?$/);
        } else {
          expect(type, id).toBe('application/vnd.apache.parquet');
          expect((await res.body()).subarray(0, 4).toString(), id).toBe('PAR1');
        }
      }
    } finally {
      await pages.release(page);
    }
  });

  it('an empty table says why: the period lies beyond what is synced', async () => {
    const { page } = await open('/tolls.html?from=2026-04-20&to=2026-04-30');
    try {
      expect(await page.locator('#table-tolls .empty').textContent()).toBe(
        'Not synced for this period: data is complete through 11 Apr 2026 (local).',
      );
      expect(await page.locator('#range-note').isHidden()).toBe(true);
    } finally {
      await pages.release(page);
    }
  });

  it('a future period is refused naming the parameter; a range past today says up to when it holds data', async () => {
    const future = await open('/tolls.html?from=2026-06-01&to=2026-06-30');
    try {
      expect(await future.page.locator('#error').textContent()).toBe(
        'Could not load Passages per gantry, Toll passages per day, Toll passages, Toll charges per passage: from: 2026-06-01 is in the future (today is 2026-05-02 in Australia/Sydney); no data exists for it yet. Retry',
      );
      // no section shows a table: each says what failed instead
      expect(await future.page.locator('table.report').count()).toBe(0);
      expect(await future.page.locator('#table-tolls .failed button').textContent()).toBe('Retry');
    } finally {
      await pages.release(future.page);
    }
    const past = await open('/mileage.html?from=2026-04-01&to=2026-05-31');
    try {
      expect(await past.page.locator('#range-note').textContent()).toBe(
        'Note: the range runs to 2026-05-31, past today (2026-05-02 in Australia/Sydney): it holds data up to now, complete through 11 Apr 2026 (local).',
      );
    } finally {
      await pages.release(past.page);
    }
  });

  it('the API-change banner shows a flagged release note and goes away on Acknowledge', async () => {
    await fx.con.run(
      `INSERT INTO api_change_records (source, version, seq, release_date, kind, section, area, contract,
         endpoints, breaking, text, affects_sync, sync_endpoints, first_seen_at, acknowledged_at)
       VALUES ('http://sim/records.json', '1.26.1120.1', 0, DATE '2026-04-20', 'breaking', 'Breaking Changes',
         'Trips', NULL, '["GET /trips"]', true, '\`GET /trips\` now requires \`filter[vehicle_id]\`.', true,
         '["GET /trips"]', TIMESTAMPTZ '2026-04-21 00:00:00+00', NULL)`,
    );
    const { page, problems } = await open(`/index.html${RANGE}`);
    try {
      const banner = page.locator('#api-changes');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('1 release note(s) change or deprecate endpoints');
      expect(await banner.locator('li').textContent()).toBe(
        '1.26.1120.1 (breaking): GET /trips — `GET /trips` now requires `filter[vehicle_id]`.',
      );
      await banner.locator('button', { hasText: 'Acknowledge' }).click();
      await banner.waitFor({ state: 'detached' });
      const changes = page.waitForResponse((r) => r.url().endsWith('/api/changes'));
      await page.reload();
      expect(await (await changes).json()).toEqual({ flagged: [] });
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#api-changes').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('the runs page shows the next scheduled run in the account zone', async () => {
    const s = await startServer({
      db: fx.db,
      config: loadConfig({
        FLEETSYNC_ACCOUNT: ACCOUNT,
        FLEET_TIMEZONE: ZONE,
        FLEETSYNC_SCHEDULE: '30 2 * * *',
      }),
      log: silentLogger,
      now: () => NOW,
      port: 0,
      runSync: async () => {
        throw new Error('not in this test');
      },
    });
    const { page } = await open('/runs.html', s.url);
    try {
      const next = s.nextRun()!;
      const local = formatLocal(next.getTime(), ZONE);
      expect(local.slice(11)).toBe('02:30:00');
      expect(await page.locator('#next-run').textContent()).toBe(`next run: ${local} (${ZONE})`);
      // the same instant, written with the account zone's offset (as /api/status and /healthz write it)
      expect(Date.parse((await page.locator('#next-run').getAttribute('data-iso'))!)).toBe(next.getTime());
      expect(await page.locator('#sync-status').textContent()).toContain('Schedule: 30 2 * * *');
      expect(await page.locator('#sync-now').isEnabled()).toBe(true);
    } finally {
      await pages.release(page);
      await s.close();
    }
  });
});

// The runs page's live status and the fuel drill-down, on a simulator fleet synced by the real
// sync (ground truth known), served with a sync engine wired in (POST /api/sync runs a real sync).
describe.skipIf(!haveChromium)('dashboard on a synced fleet: live run status, fuel drill-down', () => {
  let h: Harness;
  let live: RunningServer;
  let firstRun: string;
  // Holds a started sync until the test lets it go, so the page can be seen showing it running.
  let hold: Promise<void> = Promise.resolve();
  let release: () => void = () => {};
  const holdNextRun = () => (hold = new Promise<void>((r) => (release = r)));

  beforeAll(async () => {
    if (!haveChromium) return;
    const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
    h = shared.h;
    const first = shared.first;
    expect(first.outcome).toBe('ok');
    firstRun = first.run_id;
    live = await startServer({
      db: h.db,
      config: loadConfig({ FLEETSYNC_ACCOUNT: SYNCED_ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
      log: silentLogger,
      now: h.now,
      port: 0,
      schedule: null,
      runSync: async (trigger) => {
        await hold;
        return runSync(h.deps, { trigger, fromDay: h.lastDay, toDay: h.lastDay });
      },
    });
  }, 120_000);
  afterAll(async () => {
    release();
    await live?.close();
    await h?.close();
  });

  const runIds = (page: Page) =>
    page.$$eval('#table-runs tbody tr', (rows) =>
      rows.map((r) => (r as HTMLTableRowElement).cells[0]!.textContent),
    );

  it('runs page: Sync now shows the run as running, then its outcome and the new row, without a reload', async () => {
    const { page, problems } = await open('/runs.html', live.url);
    try {
      // a reload would lose this
      await page.evaluate(() => Object.assign(window, { fleetsyncTestMark: 'same page' }));
      expect(await page.locator('#last-run').getAttribute('data-run-id')).toBe(firstRun);
      expect(await runIds(page)).toEqual([firstRun]);
      holdNextRun();
      await page.click('#sync-now');
      await expect.poll(() => page.locator('#sync-state').getAttribute('data-state')).toBe('running');
      expect(await page.locator('#sync-now').isDisabled()).toBe(true);
      release();
      // a one-day sync: seconds here, but 15 s was too little beside three other files at load 30
      await expect
        .poll(() => page.locator('#sync-result').textContent(), { timeout: 45_000 })
        .toMatch(/: ok, /);
      const newRun = /^Run (\S+):/.exec((await page.locator('#sync-result').textContent())!)![1]!;
      expect(newRun).not.toBe(firstRun);
      await expect.poll(() => page.locator('#last-run').getAttribute('data-run-id')).toBe(newRun);
      // A poll sent while the run went on may answer after it (a loaded machine): it shows the new
      // run still running, and the poll the answer set off at once shows how it ended.
      await expect.poll(() => page.locator('#last-run').getAttribute('data-outcome')).toBe('ok');
      await expect.poll(() => page.locator('#sync-state').getAttribute('data-state')).toBe('idle');
      await expect.poll(() => runIds(page)).toEqual([newRun, firstRun]);
      const row = page.locator('#table-runs tbody tr').first();
      // started from the dashboard (trigger api), shown by its label; the outcome as a badge
      expect(await row.textContent()).toContain('Dashboard');
      expect(await row.locator('td[data-col="outcome"] .badge-ok').textContent()).toBe('Succeeded');
      expect(
        await page.evaluate(() => (window as unknown as { fleetsyncTestMark?: string }).fleetsyncTestMark),
      ).toBe('same page');
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });

  it('runs page: a run started elsewhere shows up by polling; no polls while hidden; a failed poll is a note', async () => {
    const page = await browser.newPage({ locale: 'en-US' });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    let polls = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/status') polls++;
    });
    try {
      await page.clock.install();
      await page.goto(new URL('/runs.html', live.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      const before = (await page.locator('#last-run').getAttribute('data-run-id'))!;
      // a sync started by another client (as the scheduler would), held while the page polls
      holdNextRun();
      const started = fetch(new URL('/api/sync', live.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      await expect
        .poll(
          async () =>
            (await (await fetch(new URL('/api/status', live.url))).json()) as {
              sync: { running: boolean };
            },
        )
        .toMatchObject({ sync: { running: true } });
      expect(await page.locator('#sync-state').getAttribute('data-state')).toBe('idle');
      await page.clock.fastForward(20_000);
      await expect.poll(() => page.locator('#sync-state').getAttribute('data-state')).toBe('running');
      release();
      const summary = (await (await started).json()) as { run_id: string; outcome: string };
      expect(summary.outcome).toBe('ok');
      // while a run is going the page polls every 2 s: it sees the outcome and reloads the table
      await expect
        .poll(async () => {
          await page.clock.fastForward(2_000);
          return page.locator('#last-run').getAttribute('data-run-id');
        })
        .toBe(summary.run_id);
      expect(summary.run_id).not.toBe(before);
      await expect.poll(async () => (await runIds(page))[0]).toBe(summary.run_id);
      // A poll answered between the run's row and the end of the run reads it still running
      // (seen on a loaded machine): the page's next poll, 2 s on, reads it idle.
      await expect
        .poll(async () => {
          await page.clock.fastForward(2_000);
          return page.locator('#sync-state').getAttribute('data-state');
        })
        .toBe('idle');

      // hidden tab: no polls at all; visible again: one poll at once
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      const hiddenAt = polls;
      await page.clock.fastForward(120_000);
      await page.waitForTimeout(200);
      expect(polls).toBe(hiddenAt);
      const finished = async () => Number(await page.locator('#sync-status').getAttribute('data-polls'));
      const doneBefore = await finished();
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await expect.poll(() => polls).toBe(hiddenAt + 1);
      await expect.poll(finished).toBe(doneBefore + 1);

      // a failed poll: a small note, no exception; the next good poll clears it
      await page.route('**/api/status', (r) => r.abort());
      await page.clock.fastForward(20_000);
      await expect.poll(() => page.locator('#status-note').isVisible()).toBe(true);
      expect(await page.locator('#status-note').textContent()).toBe('Status unavailable; retrying.');
      expect(await page.locator('#last-run').getAttribute('data-run-id')).toBe(summary.run_id);
      await page.unroute('**/api/status');
      await page.clock.fastForward(20_000);
      await expect.poll(() => page.locator('#status-note').isHidden()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('fuel: drills down fleet → vehicle → month → counter windows; the reset window is left out', async () => {
    const zone = h.fleet.timezone;
    const reset = h.fleet.fuelCounterResets[0]!;
    const vid = reset.vehicle_id;
    const reg = h.fleet.vehicles.find((v) => v.vehicle_id === vid)!.registration;
    const month = localDate(reset.at_ms, zone).slice(0, 7);
    // the database's own figures for that vehicle-month, straight from the synced rows
    const con = await h.db.connect();
    const dbRows = (
      await con.runAndReadAll(
        `SELECT window_start, window_end, counter_start_l, counter_end_l FROM fuel_consumed
         WHERE account = $1 AND vehicle_id = $2 AND strftime(timezone($3, window_start), '%Y-%m') = $4
         ORDER BY window_start`,
        [SYNCED_ACCOUNT, vid, zone, month],
      )
    ).getRowObjectsJS() as {
      window_start: Date;
      window_end: Date;
      counter_start_l: number;
      counter_end_l: number;
    }[];
    con.closeSync();
    const good = dbRows.filter((r) => r.counter_end_l >= r.counter_start_l);
    const bad = dbRows.filter((r) => r.counter_end_l < r.counter_start_l);
    expect(bad).toHaveLength(1);
    const dbLitres =
      Math.round(good.reduce((s, r) => s + r.counter_end_l - r.counter_start_l, 0) * 1000) / 1000;
    const trueLitres = good.reduce(
      (s, r) => s + h.fleet.truth.fuelUsedL(vid, r.window_start.getTime(), r.window_end.getTime()),
      0,
    );

    const { page, problems } = await open(`/fuel.html?from=${h.firstDay}&to=${h.lastDay}`, live.url);
    try {
      expect(await page.locator('#sec-windows').isHidden()).toBe(true);
      expect(await page.locator('#breadcrumb').count()).toBe(0);
      // fleet → vehicle
      await page.locator('#table-fuel tbody a.drill', { hasText: reg }).first().click();
      await page.waitForURL(new RegExp(`vehicle=${vid}`));
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#f-vehicle').inputValue()).toBe(String(vid));
      expect(await page.locator('#breadcrumb').textContent()).toBe(`Fleet › ${reg}`);
      // vehicle → month: the month's litres equal the database and the ground truth
      const row = page.locator('#table-fuel tbody tr', { hasText: monthText(month) });
      const pageLitres = Number(await row.locator('td[data-col="fuel_used_l"]').getAttribute('data-value'));
      expect(pageLitres).toBe(dbLitres);
      expect(pageLitres).toBeCloseTo(trueLitres, 0);
      await row.locator('a.drill', { hasText: monthText(month) }).click();
      await page.waitForURL(new RegExp(`month=${month}`));
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#breadcrumb').textContent()).toBe(`Fleet › ${reg} › ${monthText(month)}`);
      expect(await page.locator('#sec-windows h2 .title').textContent()).toBe(
        `Fuel windows behind ${reg} in ${monthText(month)}`,
      );
      const head = await page.$$eval('#table-windows thead th', (ths) =>
        ths.map((t) => (t as HTMLElement).dataset.col),
      );
      const cells = await page.$$eval('#table-windows tbody tr', (rows) =>
        rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent)),
      );
      const col = (name: string) => cells.map((r) => r[head.indexOf(name)]);
      expect(col('window_start')).toEqual(
        dbRows.map((r) => asPeopleWrite(formatIsoInZone(r.window_start.getTime(), zone))),
      );
      expect(col('window_end')).toEqual(
        dbRows.map((r) => asPeopleWrite(formatIsoInZone(r.window_end.getTime(), zone))),
      );
      const badAt = dbRows.indexOf(bad[0]!);
      expect(col('status')).toEqual(dbRows.map((_, i) => (i === badAt ? 'Left out' : 'Counted')));
      expect(col('reason')).toEqual(dbRows.map((_, i) => (i === badAt ? 'counter went down' : '')));
      expect(col('fuel_used_l')[badAt]).toBe('');
      const resetStart = bad[0]!.window_start.getTime();
      expect(resetStart <= reset.at_ms && reset.at_ms < bad[0]!.window_end.getTime()).toBe(true);
      // the windows' litres add up to the month's figure
      expect(
        Number(
          await page
            .locator('#table-windows tr.totals td[data-col="fuel_used_l"]')
            .getAttribute('data-value'),
        ),
      ).toBe(pageLitres);
      // each level downloads as its own CSV
      expect(await page.locator('#csv-fuel').getAttribute('href')).toContain(`vehicle=${vid}`);
      const href = await page.locator('#csv-windows').getAttribute('href');
      expect(href).toBe(`/api/reports/fuel_windows.csv?vehicle=${vid}&month=${month}`);
      const csv = await page.request.get(new URL(href!, live.url).href);
      expect(csv.status()).toBe(200);
      const [header, ...lines] = parseCsv((await csv.text()).replace(/^\uFEFF/, '')).filter(
        (r) => r.length > 1,
      );
      const used = header!.indexOf('fuel_used_l');
      expect(Math.round(lines.reduce((s, r) => s + Number(r[used] || 0), 0) * 1000) / 1000).toBe(pageLitres);
      // the CSV carries the codes the page shows by their labels
      expect(lines.map((r) => r[header!.indexOf('status')])).toEqual(
        await page.$$eval('#table-windows tbody td[data-col="status"]', (tds) =>
          tds.map((td) => (td as HTMLElement).dataset.code),
        ),
      );
      // back to the vehicle through the breadcrumb
      await page.locator('#breadcrumb a', { hasText: reg }).click();
      await page.waitForURL((u) => !u.search.includes('month='));
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.locator('#sec-windows').isHidden()).toBe(true);
      expect(await page.locator('#breadcrumb').textContent()).toBe(`Fleet › ${reg}`);
      expect(problems).toEqual([]);
    } finally {
      await pages.release(page);
    }
  });
});
