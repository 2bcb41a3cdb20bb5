/**
 * A range of today alone (no day of it has ended) rests on what a window touched today: nothing
 * of today pulled → kpis and trend leave distance, trips and toll passages blank (unknown), never
 * 0 (the honesty test, seed 453256609: kpis showed 0 trips for a today a sync never reached); a
 * sync reaching now → they show what it pulled so far. The fixture's clock is 2026-05-02 10:00 in
 * Sydney and its ledger ends at local midnight of 1 May, so nothing of 2 May was pulled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendRows } from '../../src/store/write.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';
import {
  ACCOUNT,
  NOW,
  T,
  reportRows,
  markFleetStreamsSynced,
  openFixture,
  refreshFixtureFacts,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const TODAY = '2026-05-02';
// local midnight of 2 and 3 May (+10:00)
const MAY_2 = T('2026-05-01T14:00:00Z');
const MAY_3 = T('2026-05-02T14:00:00Z');

beforeAll(async () => {
  fx = await openFixture();
  // trips and toll visits synced through April: the fleet-wide streams are not what is missing
  await markFleetStreamsSynced(fx.con);
});
afterAll(() => fx?.close());

const run = (name: string, raw: Record<string, string>) => reportRows(fx.con, name, raw);

describe('a range of today alone', () => {
  it('is blank when no window touched today, and shows what was pulled once one did', async () => {
    const [k] = await run('kpis', { from: TODAY, to: TODAY });
    expect(k!.range_days).toBe(0);
    expect(k).toMatchObject({ distance_km: null, trips: null, toll_passages: null, bookings: null });
    const [t] = await run('trend', { from: TODAY, to: TODAY, grain: 'day' });
    expect(t).toMatchObject({ period: TODAY, trips: null, toll_passages: null, bookings: null });

    // a sync reaching now: today's windows open (incomplete), one trip of vehicle 1 at 09:00 local
    await appendRows(fx.con, 'ledger', [
      ledgerRow(ACCOUNT, 'odometer', '1', MAY_2, MAY_3, NOW, { status: 'incomplete' }),
      ledgerRow(ACCOUNT, 'trips', '*', MAY_2, MAY_3, NOW, { status: 'incomplete' }),
      ledgerRow(ACCOUNT, 'visits', '*', MAY_2, MAY_3, NOW, { status: 'incomplete', rows: 0 }),
    ]);
    await appendRows(fx.con, 'trips', [
      {
        account: ACCOUNT,
        trip_id: 'today-1',
        vehicle_id: 1,
        registration: 'ab 123 gp',
        start_time: T('2026-05-01T23:00:00Z'),
        end_time: T('2026-05-01T23:30:00Z'),
        trip_distance_m: 8_000,
        start_odometer_m: 1_000_000,
        end_odometer_m: 1_008_000,
      },
    ]);
    await refreshFixtureFacts(fx.con);

    const [k2] = await run('kpis', { from: TODAY, to: TODAY });
    // one trip, no toll passage pulled today: known, not blank
    expect(k2).toMatchObject({ trips: 1, toll_passages: 0 });
    const [t2] = await run('trend', { from: TODAY, to: TODAY, grain: 'day' });
    expect(t2).toMatchObject({ period: TODAY, trips: 1, trip_distance_km: 8, toll_passages: 0 });
    // vehicle 2 was not pulled today: its selection stays blank
    const [k3] = await run('kpis', { from: TODAY, to: TODAY, vehicle: '2' });
    expect(k3).toMatchObject({ distance_km: null, trips: null, toll_passages: null });
  });
});
