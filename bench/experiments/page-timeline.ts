/**
 * Where an overview visit's time goes: the real server on a copy of a seed (serve's settings,
 * its warm-up done first unless BENCH_WARM=0), one visit in Chromium, every request of the page
 * with its start and end on the page's clock (ms from navigation), the server's answer
 * (X-Fleetsync-Answer) and size, and the first-data mark as bench/pages.ts takes it.
 * `node --import tsx bench/experiments/page-timeline.ts <copy.duckdb> [visits] [path]`
 * (the `.json` sidecar of the seed beside the copy; the copy is opened for writing: not the seed).
 * `AT_START=1`: the first visit right after the server starts, beside its warm-up (the bench's
 * "cold" overview visit), not after it.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { serveSeeded } from '../reports.ts';
import { MARKS } from '../pages.ts';

const [dbPath = '', visits = '2', path = '/'] = process.argv.slice(2);
const sidecar = JSON.parse(readFileSync(`${dbPath}.json`, 'utf8')) as { nowMs: number; timezone: string };
const { db, srv } = await serveSeeded({ dbPath, nowMs: sidecar.nowMs, timezone: sidecar.timezone });
const t0 = performance.now();
if (process.env.AT_START)
  void srv
    .warmed()
    .then(() => console.log(`warm-up done at ${Math.round(performance.now() - t0)} ms from the start`));
else {
  await srv.warmed();
  console.log(`warm-up ${Math.round(performance.now() - t0)} ms, load ${loadavg()[0]!.toFixed(1)}`);
}
const browser = await chromium.launch({
  executablePath: process.env.FLEETSYNC_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
});
try {
  for (let v = 0; v < Number(visits); v++) {
    const ctx = await browser.newContext({ locale: 'en-US' });
    const page = await ctx.newPage();
    await page.addInitScript(MARKS);
    const rows: string[] = [];
    page.on('requestfinished', (req) => {
      void (async () => {
        const t = req.timing();
        const res = await req.response();
        const size = (await req.sizes()).responseBodySize;
        rows.push(
          `${Math.round(t.startTime)
            .toString()
            .padStart(15)} +${Math.round(t.responseEnd).toString().padStart(5)} ms ` +
            `${(res?.headers()['x-fleetsync-answer'] ?? '').padEnd(8)} ${String(size).padStart(8)} B  ${req.url().replace(/^http:\/\/[^/]+/, '')}`,
        );
      })();
    });
    const nav = Date.now();
    await page.goto(`${srv.url.replace(/\/$/, '')}${path}`);
    await page.waitForSelector('body[data-loading="false"]', { timeout: 120_000 });
    const marks = (await page.evaluate('window.__marks')) as { first?: number; all?: number };
    console.log(
      `visit ${v + 1}: first data ${Math.round(marks.first ?? NaN)} ms, all ${Math.round(marks.all ?? NaN)} ms, load ${loadavg()[0]!.toFixed(1)} (navigation at ${nav})`,
    );
    for (const r of rows.sort()) console.log(r);
    await ctx.close();
  }
} finally {
  await browser.close();
  await srv.close();
  db.close();
}
