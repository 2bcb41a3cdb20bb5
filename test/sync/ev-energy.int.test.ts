/**
 * The EV energy stream against the simulator: one bulk request per local day for every electric
 * vehicle (none for the others), the kWh per day as the battery model answers, and a payload that
 * does not parse failing its window with the reason and a sample, storing nothing, until the next
 * run fills it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimVehicle } from '../../src/simulator/model.ts';
import { addDays, localDayBounds } from '../../src/time.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let evs: SimVehicle[];
const query = (sql: string, params: (string | number)[] = []) => queryDb(h.db, sql, params);
/** The simulator's battery model (src/simulator/routes/ev.ts): 0.16 kWh per km, answered to 0.1 kWh. */
const kwhOf = (v: SimVehicle, day: string) => {
  const { startMs, endMs } = localDayBounds(day, h.fleet.timezone);
  return Math.round((h.fleet.truth.distanceM(v.vehicle_id, startMs, endMs) / 1000) * 0.16 * 10) / 10;
};

beforeAll(async () => {
  h = await startHarness({ fleet: { seed: 7, vehicles: 8, days: 12, endDay: '2026-03-20' } });
  evs = h.fleet.vehicles.filter((v) => v.powertrain === 'electric');
  expect(evs.length).toBeGreaterThan(0);
  expect(evs.length).toBeLessThan(h.fleet.vehicles.length);
}, 120_000);
afterAll(() => h?.close());

describe('EV energy', () => {
  it('a payload without the energy fails its window with the reason and a sample; nothing is stored', async () => {
    const day = addDays(h.lastDay, -6);
    h.sim.setFaults({ fieldFault: { kind: 'ev_consumption', field: 'energy_consumed_kwh' } });
    try {
      const s = await h.sync({ fromDay: day, toDay: day, streams: ['ev_energy'] });
      expect(s.outcome).not.toBe('ok');
      expect(s.streams.ev_energy?.windows.failed).toBe(evs.length);
    } finally {
      h.sim.setFaults({});
    }
    const failed = await query(
      "SELECT reason, sample FROM ledger WHERE account = $1 AND stream = 'ev_energy' AND status = 'failed'",
      [ACCOUNT],
    );
    expect(failed).toHaveLength(evs.length);
    expect(String(failed[0]!.reason)).toMatch(/energy_consumed_kwh/);
    expect(String(failed[0]!.sample)).toContain('energy_charged_kwh');
    const [n] = await query('SELECT count(*)::INTEGER AS n FROM ev_energy');
    expect(n!.n).toBe(0);
  }, 60_000);

  it('asks one request per local day for the electric vehicles only, and stores the kWh of each day', async () => {
    const s = await h.sync();
    expect(s.outcome).toBe('ok');
    let days = 0;
    for (let d = h.firstDay; d <= h.lastDay; d = addDays(d, 1)) days++;
    // no daylight-saving change in this range: one request per day, however many EVs (≤ 100)
    expect(s.streams.ev_energy?.requests).toBe(days);
    const rows = await query(
      `SELECT vehicle_id, strftime(timezone($2, window_start), '%Y-%m-%d') AS day, energy_consumed_kwh AS kwh
       FROM ev_energy WHERE account = $1 ORDER BY vehicle_id, window_start`,
      [ACCOUNT, h.fleet.timezone],
    );
    expect(new Set(rows.map((r) => Number(r.vehicle_id)))).toEqual(new Set(evs.map((v) => v.vehicle_id)));
    expect(rows).toHaveLength(days * evs.length);
    for (const r of rows) {
      const v = evs.find((e) => e.vehicle_id === Number(r.vehicle_id))!;
      expect(r.kwh, `${v.registration} ${String(r.day)}`).toBeCloseTo(kwhOf(v, String(r.day)), 6);
    }
    // the failed day was filled by this run: no failed window is left
    const [f] = await query(
      "SELECT count(*)::INTEGER AS n FROM ledger WHERE account = $1 AND stream = 'ev_energy' AND status = 'failed'",
      [ACCOUNT],
    );
    expect(f!.n).toBe(0);
  }, 120_000);
});
