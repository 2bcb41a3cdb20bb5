/**
 * The dashboard over a harness' database: `serve`'s server on port 0 with the harness' clock and
 * zone, and a headless Chromium. For browser tests on a really synced simulator fleet.
 */
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { ACCOUNT, type Harness } from './synced.ts';
import { sharedChromium } from './shared-chromium.ts';

export interface HarnessDashboard {
  srv: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

/** `serve`'s server on port 0 over the harness' database, with its clock and zone (and `env`'s settings). */
export function serveHarness(h: Harness, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone, ...env }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
}

export async function startHarnessDashboard(
  h: Harness,
  env: Record<string, string> = {},
): Promise<HarnessDashboard> {
  const srv = await serveHarness(h, env);
  const browser = await sharedChromium();
  return {
    srv,
    browser,
    async close() {
      await browser.close();
      await srv.close();
    },
  };
}
