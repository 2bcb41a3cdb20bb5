/**
 * The dashboard on a synced simulator fleet (the real sync into a temp DuckDB file): the mileage
 * page's "left out" table lists exactly the odometer windows the ledger flagged (the fleet's
 * odometer resets and tracker swaps), never a fuel-counter window, and the fuel page lists
 * exactly the fuel windows whose counter went down; the coverage calendar names every month of
 * the synced range.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { formatIsoInZone } from '../../src/time.ts';
import { asPeopleWrite, openDashboard, sectionRows } from '../helpers/dashboard-page.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();

let h: Harness;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  // Six vehicles: the generator's fixed roles put an odometer reset on the second, a fuel counter
  // reset on the fifth and a tracker swap on the sixth.
  // The same fleet as dashboard.browser's live-status block, fuel-windows.int and scores.browser.
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  srv = await startServer({
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
  });
  browser = await sharedChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await h?.close();
});

const open = (path: string) => openDashboard(browser, new URL(path, srv.url).href);

async function sql(q: string): Promise<Record<string, unknown>[]> {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(q)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

/** A stored instant as the dashboard writes it in the fleet's zone: "7 Mar 2026, 05:00". */
const shown = (ms: number) => asPeopleWrite(formatIsoInZone(ms, h.fleet.timezone));
const range = () => `?from=${h.firstDay}&to=${h.lastDay}`;

describe.skipIf(!haveChromium)('dashboard on a synced simulator fleet', () => {
  it('mileage: the left-out table is exactly the ledger’s flagged odometer windows', async () => {
    const flagged = await sql(
      `SELECT o.vehicle_id, o.window_start, o.window_end, o.odometer_reset, o.terminal_has_changed
       FROM odometer_windows o JOIN ledger l ON l.account = o.account AND l.stream = 'odometer'
         AND l.scope = o.vehicle_id::VARCHAR AND l.window_start = o.window_start AND l.window_end = o.window_end
       WHERE l.status = 'flagged' ORDER BY o.window_start, o.vehicle_id`,
    );
    // the fleet's resets and swaps are what the ledger flagged
    expect(flagged.length).toBeGreaterThan(0);
    expect(new Set(flagged.map((r) => Number(r.vehicle_id)))).toEqual(
      new Set(h.fleet.odometerEvents.map((e) => e.vehicle_id)),
    );
    expect(h.fleet.fuelCounterResets.length).toBeGreaterThan(0);
    const { page, problems } = await open(`/mileage.html${range()}`);
    try {
      const rows = await sectionRows(page, 'excluded');
      expect(rows.length).toBe(flagged.length);
      expect(rows.map((r) => [Number(r.vehicle_id), r.window_start, r.window_end])).toEqual(
        flagged.map((f) => [
          Number(f.vehicle_id),
          shown((f.window_start as Date).getTime()),
          shown((f.window_end as Date).getTime()),
        ]),
      );
      // people read the label; the code the CSV carries is on the cell
      const codes = await page.$$eval('#table-excluded tbody td[data-col="reason"][data-code]', (tds) =>
        tds.map((td) => (td as HTMLElement).dataset.code),
      );
      expect(codes).toEqual(
        flagged.map((f) =>
          [f.odometer_reset && 'odometer_reset', f.terminal_has_changed && 'terminal_has_changed']
            .filter(Boolean)
            .join(' and '),
        ),
      );
      for (const r of rows) {
        expect(r.reason).toMatch(/^(odometer reset|tracker changed|odometer reset and tracker changed)$/);
        // the km left out come from the synced trip log, near the fleet's true distance there
        const f = flagged[rows.indexOf(r)]!;
        const truth = h.fleet.truth.distanceM(
          Number(f.vehicle_id),
          (f.window_start as Date).getTime(),
          (f.window_end as Date).getTime(),
        );
        expect(r.left_out_km, 'known: the trips of the window are synced').not.toBe('');
        expect(truth).toBeGreaterThan(1000);
        expect(Number(r.left_out_km!.replace(/,/g, '')) * 1000).toBeCloseTo(truth, -3);
      }
      expect(JSON.stringify(rows)).not.toMatch(/fuel/);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('fuel: the left-out table is exactly the fuel windows whose counter went down', async () => {
    const down = await sql(
      `SELECT vehicle_id FROM fuel_consumed WHERE counter_end_l < counter_start_l ORDER BY window_start`,
    );
    expect(new Set(down.map((r) => Number(r.vehicle_id)))).toEqual(
      new Set(h.fleet.fuelCounterResets.map((e) => e.vehicle_id)),
    );
    const { page } = await open(`/fuel.html${range()}`);
    try {
      const rows = await sectionRows(page, 'excluded');
      expect(rows.map((r) => [Number(r.vehicle_id), r.reason])).toEqual(
        down.map((d) => [Number(d.vehicle_id), 'counter went down']),
      );
      const codes = await page.$$eval('#table-excluded tbody td[data-col="reason"][data-code]', (tds) =>
        tds.map((td) => (td as HTMLElement).dataset.code),
      );
      expect(codes).toEqual(down.map(() => 'fuel_counter_went_down'));
    } finally {
      await page.close();
    }
  });

  it('the coverage calendar names every month of the synced range', async () => {
    const { page, problems } = await open(`/quality.html${range()}`);
    try {
      const months = await page.$$eval('#coverage-calendar th.cal-month', (ths) =>
        ths.map((t) => [t.textContent, (t as HTMLTableCellElement).colSpan]),
      );
      const days = await page.locator('#coverage-calendar thead tr:last-child th').count();
      expect(months.map(([m]) => m)).toEqual(['Mar 2026', 'Apr 2026']);
      expect(h.firstDay.slice(0, 7)).toBe('2026-03');
      // each label spans its month's days of the range
      const first = Number(h.firstDay.slice(8));
      expect(months.map(([, n]) => n)).toEqual([31 - first + 1, Number(h.lastDay.slice(8))]);
      expect((months[0]![1] as number) + (months[1]![1] as number)).toBe(days);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
