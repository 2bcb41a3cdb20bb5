/**
 * `npm run screenshot`: regenerates docs/overview.png, docs/mileage-drilldown.png,
 * docs/utilisation.png and docs/phone-overview.png (390 × 844, as on a phone) (with --all also the
 * data quality and carpool pages, into .scratch/) from a demo-sized fleet: the simulator with the
 * demo's options (20 vehicles × 120 days, Australia/Sydney, seed 42), synced into a temp DuckDB
 * file with the demo's prices file (so the cost tiles show costs), the dashboard in headless
 * Chromium at 1280 px (the phone shot at 390 px). The end day is fixed, so the picture only
 * changes when the product does.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { writeDemoPrices } from '../src/prices/demo.ts';
import { loadPricesFile } from '../src/prices/store.ts';
import { startServer } from '../src/server/start.ts';
import { ACCOUNT, startHarness } from '../test/helpers/synced.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/helpers/chromium.ts';

const all = process.argv.includes('--all');
const h = await startHarness({
  fleet: { seed: 42, vehicles: 20, days: 120, timezone: 'Australia/Sydney', endDay: '2026-11-20' },
  nowOffsetMs: 86_400_000,
});
try {
  const t0 = Date.now();
  const run = await h.sync();
  console.log(`sync: ${run.outcome}, ${run.requests} requests, ${Date.now() - t0} ms`);
  // the demo's prices, as `npm start` loads them
  const pcon = await h.db.connect();
  try {
    const prices = writeDemoPrices(h.fleet, join(h.dir, 'demo-prices.json'));
    await loadPricesFile(pcon, ACCOUNT, { pricesFile: prices }, h.now());
  } finally {
    pcon.closeSync();
  }
  const srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
    const v = h.fleet.vehicles[0]!.vehicle_id;
    const shots: [string, string, boolean][] = [
      ['index.html', 'docs/overview.png', false],
      [`mileage.html?vehicle=${v}&month=2026-10`, 'docs/mileage-drilldown.png', false],
      ['utilisation.html', 'docs/utilisation.png', false],
      ['sites.html', 'docs/sites.png', false],
    ];
    if (all) {
      mkdirSync('.scratch', { recursive: true });
      shots.push(
        ['quality.html', '.scratch/quality.png', true],
        ['carpool.html', '.scratch/carpool.png', true],
      );
    }
    for (const [path, file, full] of shots) {
      await page.goto(new URL(path, srv.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      await page.screenshot({ path: file, fullPage: full });
      console.log(`${file}: ${path}`);
    }
    // The overview as a phone shows it: one row of navigation, the filter bar, stacked tiles.
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
    await phone.goto(new URL('index.html', srv.url).href);
    await phone.waitForSelector('body[data-loading="false"]');
    await phone.screenshot({ path: 'docs/phone-overview.png' });
    console.log('docs/phone-overview.png: index.html at 390 × 844');
  } finally {
    await browser.close();
    await srv.close();
  }
} finally {
  await h.close();
}
