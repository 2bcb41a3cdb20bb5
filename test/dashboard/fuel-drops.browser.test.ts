/**
 * The fuel page lists the suspected fuel drops: on a synced simulator fleet with slot 9 (staged
 * drops), the section shows one row per staged drop of the simulator's truth, with its litres;
 * a vehicle without drops shows none.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

let h: Harness;
let srv: RunningServer;
let browser: Browser;
let range: string;

beforeAll(async () => {
  const shared = await startSharedSync({ seed: 7, vehicles: 10, days: 45, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  browser = await sharedChromium();
  range = `from=${h.firstDay}&to=${h.lastDay}`;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await h?.close();
});

const open = (path: string) => openDashboard(browser, new URL(path, srv.url).href);
const rowsOf = (page: import('playwright-core').Page) =>
  page.$$eval('#table-drops tbody tr:not(.totals)', (trs) => trs.map((tr) => tr.textContent ?? ''));

describe('the fuel page: suspected fuel drops', () => {
  it('lists the staged drops of slot 9 with their litres', async () => {
    const v = h.fleet.vehicles[9]!;
    const staged = h.fleet.truth.fuelDrops(h.fleet.startMs, h.fleet.endMs);
    expect(staged.length).toBeGreaterThan(0);
    const { page, problems } = await open(`fuel.html?${range}&vehicle=${v.vehicle_id}`);
    await page.waitForSelector('#table-drops tbody tr');
    const rows = await rowsOf(page);
    expect(rows.length).toBe(staged.length);
    rows.forEach((text, i) => expect(text).toContain(staged[i]!.litres.toFixed(1)));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a vehicle without drops lists none', async () => {
    const v = h.fleet.vehicles[5]!; // the other analog vehicle: refuels and driving, no drop
    const { page, problems } = await open(`fuel.html?${range}&vehicle=${v.vehicle_id}`);
    // the section has loaded and says it is empty
    await page.waitForSelector('#table-drops .empty');
    expect(await rowsOf(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
