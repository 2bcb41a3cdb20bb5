/**
 * The dashboard over a hand-filled database (report-fixture.ts, or another fixture given with its
 * account, zone and clock: test/service/fixture.ts): `serve`'s server on port 0 at the fixture's
 * clock and zone, and a headless Chromium. `prepare` may add rows first.
 */
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import type { Database } from '../../src/store/db.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from './report-fixture.ts';
import { sharedChromium } from './shared-chromium.ts';

/** A fixture the dashboard can serve: its database, and how it is put away. */
interface Fixture {
  db: Database;
  close(): void;
}

/** Which fixture, for which account, zone and clock (default: report-fixture.ts's). */
export interface FixtureAt<F extends Fixture> {
  open: () => Promise<F>;
  account: string;
  zone: string;
  now: number;
}

const REPORT_FIXTURE: FixtureAt<FixtureDb> = { open: openFixture, account: ACCOUNT, zone: ZONE, now: NOW };

export interface FixtureDashboard<F extends Fixture = FixtureDb> {
  fx: F;
  srv: RunningServer;
  browser: Browser;
  close(): Promise<void>;
}

export async function startFixtureDashboard<F extends Fixture = FixtureDb>(
  prepare: (fx: F) => Promise<void> = async () => {},
  at: FixtureAt<F> = REPORT_FIXTURE as unknown as FixtureAt<F>,
): Promise<FixtureDashboard<F>> {
  const fx = await at.open();
  await prepare(fx);
  const srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: at.account, FLEET_TIMEZONE: at.zone }),
    log: silentLogger,
    now: () => at.now,
    port: 0,
  });
  const browser = await sharedChromium();
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
