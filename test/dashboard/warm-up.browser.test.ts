/**
 * The overview's first visit after the server's warm-up (src/server/warm-up.ts), in Chromium:
 * every report call the page makes is answered from the server's memo (X-Fleetsync-Answer: kept),
 * so the warm-up asks exactly what the dashboard asks, and the tiles show the fixture's figures.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;
beforeAll(async () => {
  fx = await openFixture();
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
    schedule: null,
    warmUp: true,
  });
  browser = await sharedChromium();
});
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  fx?.close();
});

it('the first visit after the warm-up reads every report call from the memo', async () => {
  await srv.warmed();
  const page = await browser.newPage({ locale: 'en-US' });
  const answers: [string, string][] = [];
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/api/reports/'))
      answers.push([`${u.pathname}${u.search}`, r.headers()['x-fleetsync-answer'] ?? '']);
  });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  await page.goto(srv.url);
  await page.waitForSelector('body[data-loading="false"]');
  expect(problems).toEqual([]);
  // the overview's five reports and the filter bar's vehicles, each asked at least once
  const reports = new Set(answers.map(([u]) => u.split('?')[0]!.replace('/api/reports/', '')));
  expect([...reports].sort()).toEqual([
    'cost_departments',
    'costs',
    'kpis',
    'top_vehicles',
    'trend',
    'vehicles',
  ]);
  expect(answers.filter(([, a]) => a !== 'kept')).toEqual([]);
  // and what they show is the answer: the key figures drawn
  expect(await page.locator('#kpi-distance').count()).toBe(1);
  await page.close();
});
