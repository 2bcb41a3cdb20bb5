/**
 * The coverage of a cost figure per vehicle and month (vehicle_month_cost_coverage,
 * queries/models/coverage.sql; the costs and cost_departments coverage columns): a vehicle-day
 * counts when its odometer, its own fuel stream (the counter for vehicles 1 and 2, the level
 * estimate for vehicle 3) and the fleet's toll visits are all settled that day. On the hand fixture
 * with March settled for every stream, and in April the odometer as the fixture leaves it (vehicle
 * 1 settled all month, its 11th flagged; vehicle 2 settled 1–10, flagged 11, incomplete after;
 * vehicle 3 none) and fuel windows added here (vehicle 1's counter 1–10, vehicle 2's 1–11, vehicle
 * 3's level 11–30), the days worked out by hand: April 10, 11 and 0 of 30.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendRows } from '../../src/store/write.ts';
import {
  ACCOUNT,
  APR_11,
  APR_12,
  APR_START,
  MAY_START,
  NOW,
  markFleetStreamsSynced,
  openFixture,
  refreshFixtureFacts,
  reportRows,
  settleMarch,
  type FixtureDb,
} from '../helpers/report-fixture.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

let fx: FixtureDb;
const fuel = (scope: string, s: number, e: number, stream: string) =>
  ledgerRow(ACCOUNT, stream, scope, s, e, NOW, { status: 'done', reason: null, run_id: 'run-2', rows: 0 });

beforeAll(async () => {
  fx = await openFixture();
  await markFleetStreamsSynced(fx.con);
  await settleMarch(fx.con);
  await appendRows(fx.con, 'ledger', [
    fuel('1', APR_START, APR_11, 'fuel_consumed'),
    fuel('2', APR_START, APR_12, 'fuel_consumed'),
    fuel('3', APR_11, MAY_START, 'fuel_level'),
  ]);
  await refreshFixtureFacts(fx.con);
});
afterAll(() => fx?.close());

const share = (n: number, of: number) => Math.round((n / of) * 10_000) / 10_000;

describe('cost coverage per vehicle and month', () => {
  it('costs: a day counts when the odometer, the vehicle’s fuel stream and the visits are settled', async () => {
    const rows = await reportRows(fx.con, 'costs', { from: '2026-03-01', to: '2026-04-30' });
    const got = Object.fromEntries(
      rows.map((r) => [`${r.vehicle_id} ${r.period}`, [r.coverage, r.covered_share]]),
    );
    expect(got).toEqual({
      '1 2026-03': ['complete', 1],
      '2 2026-03': ['complete', 1],
      '3 2026-03': ['complete', 1],
      '1 2026-04': ['partial', share(10, 30)],
      '2 2026-04': ['partial', share(11, 30)],
      '3 2026-04': ['not_synced', 0],
    });
  });

  it('cost_departments: the department’s vehicle-days added up', async () => {
    const rows = await reportRows(fx.con, 'cost_departments', { from: '2026-04-01', to: '2026-04-30' });
    // Sales: vehicle 1; Ops: vehicle 2; '@x': vehicle 3
    const got = Object.fromEntries(rows.map((r) => [r.department, r.covered_share]));
    expect(got).toEqual({ Sales: share(10, 30), Ops: share(11, 30), '@x': 0 });
  });
});
