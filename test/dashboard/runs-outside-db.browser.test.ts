/**
 * The Sync runs page names a run the database does not show: the state file beside the database
 * holds a scheduled run whose row a full disk refused (ENOSPC); the page's status box lists it with
 * its error above the runs table, which still ends with the last run the database holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutcomes, stateFilePath } from '../../src/outcome/outcomes.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { startFixtureDashboard, type FixtureDashboard } from '../helpers/fixture-dashboard.ts';
import { ACCOUNT, NOW } from '../helpers/report-fixture.ts';

const haveChromium = checkChromium();
const ENOSPC =
  'stopped: the storage under the database failed (ENOSPC): Error: TransactionContext Error: Failed to commit: Could not write file "fleet.duckdb.wal": No space left on device';
let dash: FixtureDashboard;

beforeAll(async () => {
  if (!haveChromium) return;
  dash = await startFixtureDashboard(async (fx) => {
    const run = createOutcomes(stateFilePath(fx.db.path)).begin(ACCOUNT, 'schedule', NOW - 3_600_000);
    run.named('20260502T010000-diskfull');
    run.end({ state: 'failed', error: ENOSPC, recorded: false, nowMs: NOW - 3_590_000 });
  });
}, 120_000);
afterAll(async () => {
  await dash?.close();
});

describe.skipIf(!haveChromium)('the Sync runs page', () => {
  it('lists the run whose row a full disk refused, with ENOSPC', async () => {
    const { page, problems } = await openDashboard(dash.browser, new URL('/runs.html', dash.srv.url).href);
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
