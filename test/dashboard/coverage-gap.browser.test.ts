/**
 * Issue 12 in the browser: a database synced for its last 30 days, the overview and mileage pages
 * over the last 90 days. Unsynced periods are a gap marked "not synced" in the chart (a legend
 * entry and the canvas' data-not-synced), never a zero bar; the KPI tiles say "partial: 30 of 90
 * days synced" and link to the data-quality page; a table cell of a never-synced month reads
 * "not synced". Which periods are unsynced is worked out from the sync's own range.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { startHarnessDashboard, type HarnessDashboard } from '../helpers/harness-dashboard.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';

const haveChromium = checkChromium();
const DAY = 86_400_000;
const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

let h: Harness;
let dash: HarnessDashboard;
let syncFrom: string;
let from: string;

beforeAll(async () => {
  if (!haveChromium) return;
  h = await startHarness({ fleet: { seed: 5, vehicles: 6, days: 100, endDay: '2026-04-20' } });
  syncFrom = addDays(h.lastDay, -29);
  from = addDays(h.lastDay, -89);
  expect((await h.sync({ fromDay: syncFrom, toDay: h.lastDay })).outcome).toBe('ok');
  dash = await startHarnessDashboard(h);
}, 180_000);
afterAll(async () => {
  await dash?.close();
  await h?.close();
});

const open = (path: string) => openDashboard(dash.browser, new URL(path, dash.srv.url).href);

const chart = (page: Page, id: string) =>
  page.evaluate((cid) => {
    const c = document.getElementById(cid) as HTMLCanvasElement;
    const ch = (
      globalThis as unknown as { Chart: { getChart(c: HTMLCanvasElement): { data: unknown } } }
    ).Chart.getChart(c);
    const data = JSON.parse(JSON.stringify(ch?.data ?? null)) as {
      labels: string[];
      datasets: { label: string; data: (number | null)[] }[];
    };
    return { data, marker: c.dataset.notSynced ?? '' };
  }, id);

describe.skipIf(!haveChromium)('coverage gaps on the dashboard (30 of 90 days synced)', () => {
  it('overview: the trend marks the unsynced days as a gap and the tiles say partial, linking to quality.html', async () => {
    const { page, problems } = await open(`/index.html?from=${from}&to=${h.lastDay}`);
    try {
      const note = page.locator('#kpi-coverage');
      expect(await note.textContent()).toBe('partial: 30 of 90 days synced');
      expect(await note.getAttribute('href')).toMatch(/^quality\.html\?/);
      // by day: exactly the 60 days before the sync are gaps
      await page.selectOption('#grain', 'day');
      await page.waitForFunction(() =>
        (document.getElementById('chart-trend') as HTMLCanvasElement).dataset.notSynced?.includes('-'),
      );
      await page.waitForSelector('body[data-loading="false"]');
      const { data, marker } = await chart(page, 'chart-trend');
      const expected: string[] = [];
      for (let d = from; d < syncFrom; d = addDays(d, 1)) expected.push(d);
      expect(marker.split(' ')).toEqual(expected);
      const band = data.datasets.find((d) => d.label === 'not synced');
      expect(band, 'a legend entry "not synced"').toBeDefined();
      const trips = data.datasets.find((d) => d.label === 'trips')!;
      for (const [i, label] of data.labels.entries()) {
        const gap = label < syncFrom;
        expect(trips.data[i] === null, label).toBe(gap);
        expect(band!.data[i] !== null, label).toBe(gap);
      }
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('mileage: never-synced months are a gap in the chart and "not synced" in the table', async () => {
    const { page, problems } = await open(`/mileage.html?from=${from}&to=${h.lastDay}`);
    try {
      const { data, marker } = await chart(page, 'chart-mileage');
      // the months of the range wholly before the sync's first month
      const months = [...new Set(Array.from({ length: 90 }, (_, i) => addDays(from, i).slice(0, 7)))];
      const never = months.filter((m) => m < syncFrom.slice(0, 7));
      expect(never.length).toBeGreaterThan(0);
      expect(marker.split(' ')).toEqual(never);
      const km = data.datasets.find((d) => d.label === 'distance (km)')!;
      for (const [i, label] of data.labels.entries())
        expect(km.data[i] === null, label).toBe(never.includes(label));
      expect(data.datasets.some((d) => d.label === 'not synced')).toBe(true);
      const cells = await page.locator('#table-mileage td.not-synced').allTextContents();
      expect(cells.length).toBeGreaterThan(0);
      expect(new Set(cells)).toEqual(new Set(['not synced']));
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
