/**
 * The dashboard over the hand-filled database (report-fixture.ts): `serve`'s server on port 0 at
 * the fixture's clock and zone, and a headless Chromium. `prepare` may add rows first.
 */
import { chromium, type Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from './report-fixture.ts';

export interface FixtureDashboard {
  fx: FixtureDb;
  srv: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

export async function startFixtureDashboard(
  prepare: (fx: FixtureDb) => Promise<void> = async () => {},
): Promise<FixtureDashboard> {
  const fx = await openFixture();
  await prepare(fx);
  const srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  return {
    fx,
    srv,
    browser,
    async close() {
      await browser.close();
      await srv.close();
      fx.close();
    },
  };
}
