/**
 * A counter window without a reading at one end (the API sent the item but no
 * fuel_consumed_start or fuel_consumed_end) cannot say how much fuel was used. Finance must see
 * it left out, not find it silently missing: fuel.sql counts it in excluded_periods, the left-out
 * reports list it as fuel_counter_missing, the KPI tile counts it, and the drill-down shows it
 * "left out" with its reason. The month's litres stay the sum of the windows with both readings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildFacts } from '../../src/store/facts.ts';
import { appendRows } from '../../src/store/write.ts';
import {
  ACCOUNT,
  FIXTURE_SCOPE as scope,
  T,
  openFixture,
  reportRows,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const MAR = { from: '2026-03-01', to: '2026-03-31' };

async function run(name: string, raw: Record<string, string>) {
  // rows written by hand here: the facts and coverage the sync keeps at commit, computed first
  await rebuildFacts(fx.con, scope.account, scope.zone);
  return reportRows(fx.con, name, raw);
}

beforeAll(async () => {
  fx = await openFixture();
  // Vehicle 2: a March window with the end reading missing (its April window is in the fixture).
  await appendRows(fx.con, 'fuel_consumed', [
    {
      account: ACCOUNT,
      vehicle_id: 2,
      window_start: T('2026-02-28T13:00:00Z'),
      window_end: T('2026-03-31T13:00:00Z'),
      counter_start_l: 40,
      counter_end_l: null,
      fuel_consumed_l: 12,
    },
  ]);
});
afterAll(() => fx?.close());

describe('a fuel counter window without a reading', () => {
  it('is left out of the month and counted in excluded_periods, never dropped unsaid', async () => {
    const rows = await run('fuel', { ...MAR, vehicle: '2' });
    expect(rows).toEqual([
      expect.objectContaining({ vehicle_id: 2, period: '2026-03', fuel_used_l: null, excluded_periods: 1 }),
    ]);
  });

  it('is listed by the left-out reports with its own reason, and the KPI tile counts it', async () => {
    const fuelOut = await run('excluded_fuel_windows', MAR);
    expect(fuelOut.map((r) => [r.vehicle_id, r.reason, r.counter_start_l, r.counter_end_l])).toEqual([
      [2, 'fuel_counter_missing', 40, null],
    ]);
    const all = await run('excluded_windows', MAR);
    expect(all.filter((r) => r.stream === 'fuel_consumed').map((r) => r.reason)).toEqual([
      'fuel_counter_missing',
    ]);
    const [kpis] = await run('kpis', MAR);
    const fuel = await run('fuel', MAR);
    expect(kpis!.excluded_fuel_windows).toBe(fuel.reduce((s, r) => s + Number(r.excluded_periods), 0));
    expect(kpis!.excluded_fuel_windows).toBe(1);
  });

  it('shows as left out in the drill-down, with the reason', async () => {
    const w = await run('fuel_windows', { ...MAR, vehicle: '2' });
    expect(w.map((r) => [r.status, r.reason, r.fuel_used_l])).toEqual([
      ['left out', 'counter reading missing', null],
    ]);
  });
});
