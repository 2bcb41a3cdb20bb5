/**
 * A failed checkpoint on every page (session 14, `drain`): the state file beside the database keeps
 * the failure a sync met (src/store/checkpoint.ts) while its runs were ok; the dashboard's banner
 * says the database file could not take the data, where they are and what to do, as `status`
 * says it (exit 5), and GET /api/status carries it. Hand-filled database with every run ok.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutcomes, stateFilePath } from '../../src/outcome/outcomes.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboard } from '../helpers/dashboard-page.ts';
import { startFixtureDashboard, type FixtureDashboard } from '../helpers/fixture-dashboard.ts';
import { ACCOUNT, NOW } from '../helpers/report-fixture.ts';

const haveChromium = checkChromium();
let d: FixtureDashboard;
const PROBLEM =
  'the database file /srv/fleet.duckdb could not grow (IO Error: File too large): free space on its disk or raise the file-size limit (ulimit -f), then run the sync again; the synced data are kept in the write-ahead log /srv/fleet.duckdb.wal (do not delete it) and are written into the file at the next checkpoint';

beforeAll(async () => {
  if (!haveChromium) return;
  d = await startFixtureDashboard(async (fx) => {
    // every run ok and no window failed: only the checkpoint is wrong
    await fx.con.run("UPDATE runs SET outcome = 'ok', errors = NULL");
    await fx.con.run("UPDATE ledger SET status = 'done' WHERE status <> 'done'");
    createOutcomes(stateFilePath(fx.db.path)).update((doc) => {
      doc.checkpoint = {
        problem: PROBLEM,
        first_ms: NOW - 60_000,
        last_ms: NOW - 60_000,
        runs: [{ account: ACCOUNT, run_id: 'run-2' }],
      };
    }, true);
  });
}, 120_000);
afterAll(async () => {
  await d?.close();
});

describe.skipIf(!haveChromium)('a failed checkpoint', () => {
  it('every page shows the banner: the database file, the runs it holds back, and what to do', async () => {
    const status = (await (await fetch(new URL('/api/status', d.srv.url))).json()) as {
      verdict: { exit_code: number; problems: string[] };
    };
    const line = `the last checkpoint failed (runs ${ACCOUNT} run-2): ${PROBLEM}`;
    expect(status.verdict).toEqual({ exit_code: 5, problems: [line] });
    for (const path of ['index.html', 'runs.html']) {
      const { page, problems } = await openDashboard(d.browser, new URL(`/${path}`, d.srv.url).href);
      try {
        const banner = page.locator('#run-banner');
        expect(await banner.isVisible(), path).toBe(true);
        expect(await banner.locator('strong').innerText()).toBe(
          'The database file could not take the last sync’s data (they are kept in its write-ahead log).',
        );
        expect(await banner.locator('li').allInnerTexts()).toEqual([line]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }
  });
});
