/**
 * The Sync runs page lists the subscriptions and the month-end pack with their last sends: `serve`
 * at 1 May 07:01 in Sydney over the hand-filled database sends the monthly mileage subscription at
 * start (April, not complete: partial), while the fuel one waits for a complete April; the page and
 * GET /api/subscriptions say so, with the reason. A real SMTP server on port 0 takes the mail.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { checkSubscriptions } from '../../src/reports/subscription-file.ts';
import type { SubscriptionsAnswer } from '../../src/server/api-types.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { openDashboardAt, seriousAxeViolations } from '../helpers/dashboard-page.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, ZONE, openFixture, settleMarch, type FixtureDb } from '../helpers/report-fixture.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
const PASSWORD = 'page-Mail1';
let fx: FixtureDb;
let srv: RunningServer;
let smtp: SmtpReceiver;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  fx = await openFixture();
  await settleMarch(fx.con);
  smtp = await startSmtpReceiver(PASSWORD);
  const { subscriptions, problems } = checkSubscriptions(
    JSON.stringify({
      subscriptions: [
        {
          name: 'monthly-mileage',
          report: 'mileage',
          period: 'last-month',
          format: 'both',
          to: ['fleet@example.com'],
          schedule: '0 7 1 * *',
        },
        {
          name: 'fuel-when-complete',
          report: 'fuel',
          period: 'last-month',
          department: 'Sales',
          format: 'xlsx',
          to: ['finance@example.com'],
          schedule: '0 7 1 * *',
          if_incomplete: 'wait',
          wait_hours: 48,
        },
      ],
    }),
  );
  expect(problems).toEqual([]);
  srv = await startServer({
    db: fx.db,
    config: loadConfig({
      FLEETSYNC_ACCOUNT: ACCOUNT,
      FLEET_TIMEZONE: ZONE,
      FLEETSYNC_SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${smtp.port}`,
      FLEETSYNC_REPORT_TO: 'cfo@example.com',
    }),
    log: silentLogger,
    // 1 May 2026 07:01 in Sydney (AEST, +10)
    now: () => Date.parse('2026-04-30T21:01:00Z'),
    port: 0,
    schedule: null,
    subscriptions,
  });
  await srv.subscriptionsChecked();
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await smtp?.close();
  fx?.close();
});

const PARTIAL =
  'PARTIAL: the data is complete through 31 Mar 2026 (local); the period ends 2026-04-30, so later days may still change; ' +
  "Mileage per vehicle and month: 45.6 % of the period's vehicle-days synced (2 of 3 rows partial or not synced)";

describe.skipIf(!haveChromium)('subscriptions on the Sync runs page', () => {
  it('GET /api/subscriptions: each with its last send, the pack with none', async () => {
    expect(smtp.mails.map((m) => m.to)).toEqual([['fleet@example.com']]);
    const a = (await (await fetch(new URL('/api/subscriptions', srv.url))).json()) as SubscriptionsAnswer;
    expect(a.zone).toBe(ZONE);
    expect(a.subscriptions.map((s) => [s.name, s.filter, s.wait_hours, s.last_send])).toEqual([
      [
        'monthly-mileage',
        '',
        null,
        {
          sent_at: '2026-05-01T07:01:00+10:00',
          period_from: '2026-04-01',
          period_to: '2026-04-30',
          partial: true,
          reason: PARTIAL.slice('PARTIAL: '.length),
          trigger: 'schedule',
          recipients: 'fleet@example.com',
        },
      ],
      ['fuel-when-complete', 'department Sales', 48, null],
    ]);
    expect(a.month_end_pack).toEqual({
      to: ['cfo@example.com'],
      schedule: null,
      deadline_days: 5,
      last_send: null,
    });
  });

  it('the page lists them: the last send with its period and reason, "never sent" for the others', async () => {
    const { page, problems, ctx } = await openDashboardAt(browser, new URL('/runs.html', srv.url).href, {
      width: 1400,
      height: 900,
    });
    try {
      await page.locator('#subscriptions tbody tr').first().waitFor();
      const rows = await page
        .locator('#subscriptions tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
      expect(rows).toEqual([
        [
          'monthly-mileage',
          'Mileage per vehicle and month',
          'last month',
          'CSV and XLSX',
          'fleet@example.com',
          '0 7 1 * *',
          `2026-05-01 07:01:00 (${ZONE}), 2026-04-01 to 2026-04-30, ${PARTIAL}`,
        ],
        [
          'fuel-when-complete',
          'Fuel used per vehicle and month',
          'last month (department Sales)',
          'XLSX',
          'finance@example.com',
          '0 7 1 * *, waits up to 48 h for a complete period',
          'never sent',
        ],
        [
          'month-end-pack',
          'Mileage, fuel and tolls',
          'last month',
          'XLSX',
          'cfo@example.com',
          'only on request',
          'never sent',
        ],
      ]);
      expect(problems).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
