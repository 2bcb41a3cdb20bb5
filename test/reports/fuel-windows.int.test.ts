/**
 * fuel_windows (the fuel page's drill-down to the windows behind a vehicle-month) on a synced
 * simulator fleet: its counted litres add up to the fuel report's month, each counted window
 * equals the fuel truly burned in it, and the window holding the ECU counter reset is listed as
 * left out ("counter went down"), never counted and never negative.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonRow } from '../../src/reports/run.ts';
import { parseWireTimestamp } from '../../src/time.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { type Harness } from '../helpers/synced.ts';

let h: Harness;

beforeAll(async () => {
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
}, 120_000);
afterAll(() => h?.close());

const report = (name: string, raw: Record<string, string>) => h.report(name, raw);

const ms = (iso: unknown) => parseWireTimestamp(String(iso))!;
const range = () => ({ from: h.firstDay, to: h.lastDay });
const sum = (rows: JsonRow[], col: string) => rows.reduce((s, r) => s + (Number(r[col]) || 0), 0);

describe('fuel_windows against the fuel report and the ground truth', () => {
  it('every vehicle-month: counted litres = the fuel report, left-out windows = excluded_periods', async () => {
    const fuel = await report('fuel', range());
    const windows = await report('fuel_windows', range());
    expect(fuel.length).toBeGreaterThan(4);
    for (const f of fuel) {
      const mine = windows.filter((w) => w.vehicle_id === f.vehicle_id && w.period === f.period);
      const label = `${f.registration} ${f.period}`;
      // electric and sensorless vehicles are listed too (issue 12), with no window and no litres
      if (f.source === 'electric' || f.source === 'none') {
        expect(mine, label).toEqual([]);
        expect(f.fuel_used_l, label).toBeNull();
        continue;
      }
      expect(mine.length, label).toBeGreaterThan(0);
      expect(Math.round(sum(mine, 'fuel_used_l') * 1000) / 1000, label).toBe(f.fuel_used_l);
      expect(mine.filter((w) => w.status === 'left out').length, label).toBe(f.excluded_periods);
      for (const w of mine) expect(w.source, label).toBe(f.source);
    }
    // and nothing beyond the fuel report's vehicle-months
    const keys = new Set(fuel.map((f) => `${f.vehicle_id}|${f.period}`));
    for (const w of windows) expect(keys.has(`${w.vehicle_id}|${w.period}`)).toBe(true);
  });

  it('each counted counter window holds the fuel truly burned in it, never negative', async () => {
    const windows = (await report('fuel_windows', range())).filter((w) => w.source === 'counter');
    const counted = windows.filter((w) => w.status === 'counted');
    expect(counted.length).toBeGreaterThan(5);
    for (const w of counted) {
      const vid = Number(w.vehicle_id);
      const truth = h.fleet.truth.fuelUsedL(vid, ms(w.window_start), ms(w.window_end));
      expect(Number(w.fuel_used_l)).toBeGreaterThanOrEqual(0);
      expect(Number(w.fuel_used_l), `${vid} ${String(w.window_start)}`).toBeCloseTo(truth, 1);
      expect(Number(w.fuel_used_l)).toBeCloseTo(Number(w.counter_end_l) - Number(w.counter_start_l), 6);
      expect(w.reason).toBeNull();
    }
  });

  it('the window with the counter reset is left out with its reason and span, in its vehicle-month', async () => {
    expect(h.fleet.fuelCounterResets.length).toBeGreaterThan(0);
    for (const reset of h.fleet.fuelCounterResets) {
      const vid = reset.vehicle_id;
      const windows = await report('fuel_windows', { ...range(), vehicle: String(vid) });
      const holding = windows.filter(
        (w) => ms(w.window_start) <= reset.at_ms && reset.at_ms < ms(w.window_end),
      );
      expect(holding).toHaveLength(1);
      const w = holding[0]!;
      expect(w.status).toBe('left out');
      expect(w.reason).toBe('counter went down');
      expect(w.fuel_used_l).toBeNull();
      expect(Number(w.counter_end_l)).toBeLessThan(Number(w.counter_start_l));
      expect(Number(w.span_h)).toBeLessThanOrEqual(25);
      // the month view: only that vehicle-month, and its total ties to the fuel report
      const month = String(w.period);
      const inMonth = await report('fuel_windows', { month, vehicle: String(vid) });
      expect(inMonth.every((x) => x.vehicle_id === vid && x.period === month)).toBe(true);
      const [f] = await report('fuel', { month, vehicle: String(vid) });
      expect(f!.excluded_periods).toBe(1);
      expect(Math.round(sum(inMonth, 'fuel_used_l') * 1000) / 1000).toBe(f!.fuel_used_l);
      // the month's counted litres = the truth over the month's counted windows
      const truth = inMonth
        .filter((x) => x.status === 'counted')
        .reduce((s, x) => s + h.fleet.truth.fuelUsedL(vid, ms(x.window_start), ms(x.window_end)), 0);
      expect(Number(f!.fuel_used_l)).toBeCloseTo(truth, 0);
    }
  });
});
