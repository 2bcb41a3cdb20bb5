/**
 * The dashboard on a synced simulator fleet whose API sent a booking status this version does not
 * know (issue 23): the carpool page's bookings table shows that booking with its status as sent
 * and Late "unknown" (not "No"), and the data-quality page lists the value; no serious axe
 * violation on either page with the new content, at desk and phone width.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimBooking } from '../../src/simulator/model.ts';
import { localDate } from '../../src/time.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { sectionRows, seriousAxeViolations } from '../helpers/dashboard-page.ts';
import { startHarnessDashboard, type HarnessDashboard } from '../helpers/harness-dashboard.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

const haveChromium = checkChromium();
const ON_HOLD = 'BOOKING_STATUS_ON_HOLD';

let h: Harness;
let dash: HarnessDashboard;
let held: SimBooking;

beforeAll(async () => {
  if (!haveChromium) return;
  h = await startHarness({ fleet: { vehicles: 14, days: 30 } });
  held = h.fleet.bookings.find(
    (b) =>
      b.end_ms < h.fleet.endMs - 5 * 86_400_000 &&
      h.fleet.bookingAt(b, h.now()).status === 'BOOKING_STATUS_RETURNED_LATE',
  )!;
  h.sim.setFaults({
    surprises: {
      changes: [
        { kind: 'booking', where: { booking_id: held.booking_id }, set: { booking_status: ON_HOLD } },
      ],
    },
  });
  expect((await h.sync({ streams: ['vehicles', 'carpool', 'bookings'] })).outcome).toBe('ok');
  dash = await startHarnessDashboard(h);
}, 120_000);
afterAll(async () => {
  await dash?.close();
  await h?.close();
});

describe.skipIf(!haveChromium)('a value this version does not know, on the dashboard', () => {
  for (const [width, height] of [
    [1400, 900],
    [390, 844],
  ] as const)
    it(`the booking reads Late "unknown"; data quality lists the value (${width} px)`, async () => {
      const day = localDate(held.start_ms, h.fleet.timezone);
      // axe needs a page of its own browser context
      const ctx = await dash.browser.newContext({ locale: 'en-US', viewport: { width, height } });
      const open = async (path: string) => {
        const page = await ctx.newPage();
        const problems: string[] = [];
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(new URL(`${path}?from=${day}&to=${day}`, dash.srv.url).href);
        await page.waitForSelector('body[data-loading="false"]');
        return { page, problems };
      };
      try {
        const carpool = await open('/carpool.html');
        const quality = await open('/quality.html');
        const rows = await sectionRows(carpool.page, 'bookings');
        const mine = rows.find((r) => r.booking_id === String(held.booking_id));
        expect(mine).toMatchObject({ booking_status: ON_HOLD, is_late: 'unknown' });
        expect(rows.filter((r) => r.is_late === 'unknown')).toHaveLength(1);
        expect(await sectionRows(quality.page, 'unknown-values')).toEqual([
          {
            record: 'booking',
            field: 'booking_status',
            value: ON_HOLD,
            records: '1',
            example_id: String(held.booking_id),
          },
        ]);
        for (const { page, problems } of [carpool, quality]) {
          expect(await seriousAxeViolations(page)).toEqual([]);
          expect(problems).toEqual([]);
        }
      } finally {
        await ctx.close();
      }
    });
});
