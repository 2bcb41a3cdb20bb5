/**
 * A dashboard on a shared synced database (shared-sync.ts) in Chromium: the harness, the server
 * on port 0 and the browser, closed together; and a section's CSV download read as objects.
 */
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import type { FleetOptions } from '../../src/simulator/model.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { downloaded } from './dashboard-page.ts';
import { startSharedSync } from './shared-sync.ts';
import { ACCOUNT, type Harness } from './synced.ts';
import { sharedChromium } from './shared-chromium.ts';

export interface SyncedDashboard {
  h: Harness;
  srv: RunningServer;
  browser: Browser;
  /** The sync that built the shared database. */
  first: RunSummary;
  close(): Promise<void>;
}

export async function startSyncedDashboard(fleet: Partial<FleetOptions>): Promise<SyncedDashboard> {
  const { h, first } = await startSharedSync(fleet);
  const srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  const browser = await sharedChromium();
  return {
    h,
    srv,
    browser,
    first,
    async close() {
      await browser.close();
      await srv.close();
      await h.close();
    },
  };
}

/** A section's CSV download (link `#<linkId>`) as objects; for reports none of whose fields holds a comma. */
export async function downloadCsv(page: Page, linkId: string): Promise<Record<string, string>[]> {
  const [head, ...lines] = (await downloaded(page, `#${linkId}`))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
  const cols = head!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
}
