/**
 * The EV energy stream against the simulator: one bulk request per local day for every electric
 * vehicle (none for the others), the kWh per day as the battery model answers, and a payload that
 * does not parse failing its window with the reason and a sample, storing nothing, until the next
 * run fills it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet, SimVehicle } from '../../src/simulator/model.ts';
import { addDays, localDayBounds } from '../../src/time.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let evs: SimVehicle[];
const query = (sql: string, params: (string | number)[] = []) => queryDb(h.db, sql, params);
/** The simulator's battery model (src/simulator/routes/ev.ts): 0.16 kWh per km, answered to 0.1 kWh. */
const kwhOf = (v: SimVehicle, day: string, fleet: Fleet = h.fleet) => {
  const { startMs, endMs } = localDayBounds(day, fleet.timezone);
  return Math.round((fleet.truth.distanceM(v.vehicle_id, startMs, endMs) / 1000) * 0.16 * 10) / 10;
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

describe('the bottleneck bucket starts beside the odometer', () => {
  it('EV energy (10 a window, the run’s slowest bucket) is asked while the fleet’s odometer is still coming in, and stores the same kWh', async () => {
    // 64 vehicles, one odometer window each: four rounds of the 16 units in flight, each answer
    // 300 ms late (real time, so the rounds are long beside a commit). 12 days of EV energy need
    // two windows of the ev_consumption bucket (10 a window): that bucket sets the run's least
    // time, and its units wait only for the odometer of the EVs (which is asked first). One EV
    // (index 3, TC003K) is silent from day 8 on: its later days must wait for it, as they do
    // when the whole odometer comes first.
    const silence = { vehicleIndex: 3, fromDay: 8, days: 4, uploadAfterMs: 30 * 86_400_000 };
    const g = await startHarness({
      fleet: { seed: 7, vehicles: 64, days: 12, endDay: '2026-03-20', silence },
      instantWaits: true,
    });
    try {
      const electric = g.fleet.vehicles.filter((v) => v.powertrain === 'electric');
      const quiet = g.fleet.vehicles[silence.vehicleIndex]!;
      expect(quiet.powertrain).toBe('electric');
      expect(electric.length).toBeLessThan(16);
      g.sim.setFaults({ latencyMs: 300 });
      const from = g.log.lines.length;
      const s = await g.sync({ streams: ['odometer', 'ev_energy'] });
      expect(s.outcome).toBe('ok');
      // the client's debug line per request, in the order the answers came
      const answers = g.log.lines.slice(from).filter((l) => / api request /.test(l));
      const isOdometer = (l: string) => /\/odometer/.test(l);
      const firstEv = answers.findIndex((l) => l.includes('/vehicles/ev-consumption'));
      expect(answers.filter(isOdometer)).toHaveLength(g.fleet.vehicles.length);
      expect(firstEv).toBeGreaterThanOrEqual(0);
      // at least a round of the odometer (16 answers) came after it (when the whole odometer
      // went first, every one of the 64 came before it)
      const odometerAfter = answers.slice(firstEv).filter(isOdometer).length;
      expect(odometerAfter, 'odometer answers after the first EV answer').toBeGreaterThanOrEqual(16);
      // and its windows are what a run that waited makes of them: the silent EV's days after its
      // silence began wait for it, naming it; every other day is settled with the day's true kWh
      const silentFrom = addDays(g.firstDay, silence.fromDay + 1);
      const windows = await queryDb(
        g.db,
        `SELECT l.scope, strftime(timezone($2, l.window_start), '%Y-%m-%d') AS day, l.status, l.reason,
                e.energy_consumed_kwh AS kwh
         FROM ledger AS l
         LEFT JOIN ev_energy AS e ON e.account = l.account AND CAST(e.vehicle_id AS VARCHAR) = l.scope
           AND e.window_start = l.window_start
         WHERE l.account = $1 AND l.stream = 'ev_energy'`,
        [ACCOUNT, g.fleet.timezone],
      );
      let days = 0;
      for (let d = g.firstDay; d <= g.lastDay; d = addDays(d, 1)) days++;
      expect(windows).toHaveLength(days * electric.length);
      let waited = 0;
      for (const w of windows) {
        const v = electric.find((e) => String(e.vehicle_id) === w.scope)!;
        const day = String(w.day);
        const label = `${v.registration} ${day}`;
        if (v === quiet && day >= silentFrom) {
          waited++;
          expect(w.status, label).toBe('incomplete');
          expect(String(w.reason), label).toContain(quiet.registration);
          continue;
        }
        if (v === quiet && day >= addDays(g.firstDay, silence.fromDay)) continue; // the day it fell silent
        expect(w.status, label).toBe('done');
        expect(w.kwh, label).toBeCloseTo(kwhOf(v, day, g.fleet), 6);
      }
      expect(waited).toBe(days - silence.fromDay - 1);
    } finally {
      await g.close();
    }
  }, 60_000);
});
