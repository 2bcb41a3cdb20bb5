/**
 * The Sync runs page names a run the database does not show: the state file beside the database
 * holds a scheduled run whose row a full disk refused (ENOSPC); the page's status box lists it with
 * its error above the runs table, which still ends with the last run the database holds.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { createOutcomes, stateFilePath } from '../../src/outcome/outcomes.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { CHROMIUM, CHROMIUM_ARGS, haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

const haveChromium = checkChromium();
const ENOSPC =
  'stopped: the storage under the database failed (ENOSPC): Error: TransactionContext Error: Failed to commit: Could not write file "fleet.duckdb.wal": No space left on device';
let fx: FixtureDb;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  const run = createOutcomes(stateFilePath(fx.db.path)).begin(ACCOUNT, 'schedule', NOW - 3_600_000);
  run.named('20260502T010000-diskfull');
  run.end({ state: 'failed', error: ENOSPC, recorded: false, nowMs: NOW - 3_590_000 });
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  fx?.close();
});

describe.skipIf(!haveChromium)('the Sync runs page', () => {
  it('lists the run whose row a full disk refused, with ENOSPC', async () => {
    const { page, problems } = await openDashboard(browser, new URL('/runs.html', srv.url).href);
    try {
      const items = await page.locator('#runs-outside-db li').allTextContents();
      expect(items).toEqual([
        expect.stringMatching(
          /^Run 20260502T010000-diskfull \(schedule\) of account acme: failed, started .* — not in the database: stopped: the storage under the database failed \(ENOSPC\)/,
        ),
      ]);
      expect(await page.locator('#runs-outside-db').isVisible()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
