/**
 * `serve --lake` in a real Chromium: two accounts synced into their own files and published to
 * one lake. The lake server shows an account selector; for each account chosen there, every
 * report table of the mileage and fuel pages shows what a server on that account's own file
 * shows. A server on a file with one account shows no selector. With the workers' job outcomes
 * in the lake, every page shows a banner naming the failed and the never-published accounts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { expectAccount, readOutcomes, recordJob } from '../../src/lake/outcomes.ts';
import { publishAccount } from '../../src/lake/publish.ts';
import { lakeAccounts, openLake } from '../../src/lake/read.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import type { Database } from '../../src/store/db.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
const NAMES = ['north', 'south'] as const;

const harness: Record<string, Harness> = {};
const fileServer: Record<string, RunningServer> = {};
let lakeDir: string;
let lakeDb: Database;
let lakeServer: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  lakeDir = mkdtempSync(join(tmpdir(), 'fleetsync-lake-'));
  for (const [i, name] of NAMES.entries()) {
    const h = await startHarness({
      fleet: { seed: 11 + i, vehicles: 3 + i, days: 35, endDay: '2026-04-20' },
      deps: { account: name },
    });
    expect((await h.sync()).outcome).toBe('ok');
    const con = await h.db.connect();
    await publishAccount(con, name, lakeDir).finally(() => con.closeSync());
    harness[name] = h;
    fileServer[name] = await startServer({
      db: h.db,
      config: loadConfig({ FLEETSYNC_ACCOUNT: name, FLEET_TIMEZONE: h.fleet.timezone }),
      log: silentLogger,
      now: h.now,
      port: 0,
      schedule: null,
    });
  }
  lakeDb = await openLake(lakeDir);
  const h0 = harness.north!;
  lakeServer = await startServer({
    db: lakeDb,
    config: loadConfig({ FLEETSYNC_ACCOUNT: 'north', FLEET_TIMEZONE: h0.fleet.timezone }),
    log: silentLogger,
    now: h0.now,
    port: 0,
    schedule: null,
    accounts: () => lakeAccounts(lakeDir),
  });
  browser = await sharedChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await lakeServer?.close();
  lakeDb?.close();
  for (const s of Object.values(fileServer)) await s.close();
  for (const h of Object.values(harness)) await h.close();
  if (lakeDir) rmSync(lakeDir, { recursive: true, force: true });
});

const range = (h: Harness) => `?from=${h.firstDay}&to=${h.lastDay}`;

describe.skipIf(!haveChromium)('serve --lake: the account selector', () => {
  it('shows, per account, the same figures as a server on that account’s file', async () => {
    for (const pageName of ['mileage.html', 'fuel.html']) {
      for (const name of NAMES) {
        const h = harness[name]!;
        const ctx = await browser.newContext({ locale: 'en-US' });
        const page = await ctx.newPage();
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(new URL(pageName + range(h), lakeServer.url).href);
        await page.waitForSelector('body[data-loading="false"]');
        expect(
          await page.$$eval('#account option', (os) => os.map((o) => (o as HTMLOptionElement).value)),
        ).toEqual([...NAMES]);
        if ((await page.inputValue('#account')) !== name) {
          await Promise.all([page.waitForEvent('load'), page.selectOption('#account', name)]);
          await page.waitForSelector('body[data-loading="false"]');
        }
        expect(await page.inputValue('#account')).toBe(name);
        const fromLake = await page.$$eval('main table', (ts) => ts.map((t) => (t as HTMLElement).innerText));

        const filePage = await ctx.newPage();
        await filePage.goto(new URL(pageName + range(h), fileServer[name]!.url).href);
        await filePage.waitForSelector('body[data-loading="false"]');
        expect(await filePage.$$('#account')).toHaveLength(0); // one account: no selector
        const fromFile = await filePage.$$eval('main table', (ts) =>
          ts.map((t) => (t as HTMLElement).innerText),
        );
        expect(fromFile.join('').length).toBeGreaterThan(100);
        expect({ page: pageName, account: name, tables: fromLake }).toEqual({
          page: pageName,
          account: name,
          tables: fromFile,
        });
        expect(problems).toEqual([]);
        await ctx.close();
      }
    }
    // The two accounts' figures differ: the selector really switched the data.
    const a = await (await fetch(new URL('api/reports/kpis?account=north', lakeServer.url))).json();
    const b = await (await fetch(new URL('api/reports/kpis?account=south', lakeServer.url))).json();
    expect(a.rows).not.toEqual(b.rows);
  }, 180_000);

  it('refuses an account the lake does not hold, naming the ones it does', async () => {
    const res = await fetch(new URL('api/status?account=nowhere', lakeServer.url));
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/unknown account "nowhere"; accounts here: north, south/);
  });
});

describe.skipIf(!haveChromium)('serve --lake: the workers’ job outcomes', () => {
  it('a banner on the pages names the failed account and the never-published one, not the good one', async () => {
    const nowMs = harness.north!.now();
    const at = (ms: number) => new Date(ms).toISOString();
    recordJob(
      lakeDir,
      'north',
      { id: 'job-n', outcome: 'ok', attempt: 1, ended_at: at(nowMs), retrying: false, error: null },
      at(nowMs),
    );
    recordJob(
      lakeDir,
      'south',
      {
        id: 'job-s',
        outcome: 'failed',
        attempt: 2,
        ended_at: at(nowMs),
        retrying: true,
        error: 'E_SYNC_PARTIAL: account south: sync failed',
      },
      at(nowMs),
    );
    expectAccount(lakeDir, 'east');
    const withJobs = await startServer({
      db: lakeDb,
      config: loadConfig({ FLEETSYNC_ACCOUNT: 'north', FLEET_TIMEZONE: harness.north!.fleet.timezone }),
      log: silentLogger,
      now: harness.north!.now,
      port: 0,
      schedule: null,
      accounts: () => lakeAccounts(lakeDir),
      jobs: () => readOutcomes(lakeDir),
    });
    const ctx = await browser.newContext({ locale: 'en-US' });
    try {
      const page = await ctx.newPage();
      await page.goto(new URL('mileage.html' + range(harness.north!), withJobs.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      expect(await page.$$eval('#worker-jobs li', (li) => li.map((l) => l.textContent))).toEqual([
        'account east: never published to the lake',
        `account south: the last job job-s failed (attempt 2, retrying) at ${at(nowMs)}: E_SYNC_PARTIAL: account south: sync failed`,
      ]);
      expect(await page.getAttribute('#worker-jobs', 'role')).toBe('alert');
      const health = await fetch(new URL('healthz', withJobs.url));
      expect(health.status).toBe(503);
      // The lake server without job outcomes (and a file's server) shows no banner.
      const plain = await ctx.newPage();
      await plain.goto(new URL('mileage.html' + range(harness.north!), lakeServer.url).href);
      await plain.waitForSelector('body[data-loading="false"]');
      expect(await plain.$$('#worker-jobs')).toHaveLength(0);
    } finally {
      await ctx.close();
      await withJobs.close();
    }
  }, 60_000);
});
