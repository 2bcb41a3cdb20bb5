/**
 * Suspected fuel drops on a synced simulator fleet, against the simulator's ground truth: slot 9
 * (an analog level-sensor vehicle) has staged drops — the level falls 12–25 L within 8–20 minutes
 * while parked. The tank level series is pulled only for level-sensor vehicles; every staged drop
 * is found with its litres and times, nothing else is (refuels are rises, driving falls happen
 * during trips), and fuel used stays the fuel burned.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimFuelDrop, SimVehicle } from '../../src/simulator/model.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { parseWireTimestamp } from '../../src/time.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, type Harness } from '../helpers/synced.ts';

let h: Harness;
let slot9: SimVehicle;
let staged: SimFuelDrop[];
const ms = (iso: unknown) => parseWireTimestamp(String(iso))!;
const hasLevel = (v: SimVehicle) => v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level;

async function query(sql: string, params: (string | number)[] = []) {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(sql, params)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

beforeAll(async () => {
  const shared = await startSharedSync({ seed: 7, vehicles: 10, days: 45, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  slot9 = h.fleet.vehicles[9]!;
  staged = h.fleet.truth.fuelDrops(h.fleet.startMs, h.fleet.endMs);
}, 120_000);
afterAll(() => h?.close());

const range = () => ({ from: h.firstDay, to: h.lastDay });

describe('suspected fuel drops', () => {
  it('the simulator stages drops on slot 9 only, parked, between its trips', () => {
    expect(staged.length).toBeGreaterThanOrEqual(2);
    expect(new Set(staged.map((d) => d.vehicle_id))).toEqual(new Set([slot9.vehicle_id]));
    for (const d of staged) {
      const during = h.fleet
        .tripsOf(d.vehicle_id)
        .filter((t) => t.start_ms < d.end_ms && t.end_ms > d.start_ms);
      expect(during).toEqual([]);
    }
  });

  it('pulls the level series only for vehicles with a level sensor', async () => {
    const rows = await query(
      `SELECT DISTINCT scope FROM ledger WHERE account = $1 AND stream = 'fuel_level_history'`,
      [ACCOUNT],
    );
    const want = h.fleet.vehicles.filter(hasLevel).map((v) => String(v.vehicle_id));
    expect(rows.map((r) => String(r.scope)).sort()).toEqual(want.sort());
    expect(want.length).toBeLessThan(h.fleet.vehicles.length); // the EV and the sensorless van are not asked
  });

  it('finds every staged drop with its litres and times, and no other', async () => {
    const rows = await h.report('fuel_drops', range());
    expect(rows.map((r) => r.vehicle_id)).toEqual(staged.map((d) => d.vehicle_id));
    rows.forEach((r, i) => {
      const d = staged[i]!;
      expect(r.registration).toBe(slot9.registration);
      expect(Math.abs(ms(r.start_time) - d.start_ms)).toBeLessThan(1000);
      expect(Math.abs(ms(r.end_time) - d.end_ms)).toBeLessThan(1000);
      expect(Number(r.litres)).toBeCloseTo(d.litres, 1);
      expect(Number(r.level_before_l)).toBeCloseTo(d.level_before_l, 1);
      expect(Number(r.level_after_l)).toBeCloseTo(d.level_after_l, 1);
      expect(r.parked).toBe(true);
    });
  });

  it('the threshold is configurable: only the drops larger than FLEETSYNC_FUEL_DROP_L are listed', async () => {
    const sizes = staged.map((d) => d.litres).sort((a, b) => a - b);
    const cut = (sizes[0]! + sizes.at(-1)!) / 2;
    const rows = await h.report('fuel_drops', range(), { fuelDropL: cut });
    expect(rows.map((r) => Number(r.litres)).sort((a, b) => a - b)).toEqual(
      sizes.filter((l) => l > cut).map((l) => expect.closeTo(l, 1)),
    );
    expect(rows.length).toBeLessThan(staged.length);
  });

  it('the series has the refuels and the driving falls, and neither is a drop', async () => {
    const [n] = await query(
      `WITH s AS (
         SELECT vehicle_id, level_l - lag(level_l) OVER (PARTITION BY vehicle_id ORDER BY reading_time) AS d
         FROM fuel_level_history WHERE account = $1)
       SELECT count(*) FILTER (WHERE d > 8)::INTEGER AS rises, count(*) FILTER (WHERE d < 0)::INTEGER AS falls FROM s`,
      [ACCOUNT],
    );
    expect(n!.rises).toBeGreaterThan(0); // refuels
    expect(n!.falls).toBeGreaterThan(staged.length * 10); // driving
  });

  it('fuel used stays the fuel burned: the API estimate leaves the drops out', async () => {
    const [w] = await query(
      `SELECT sum(estimated_used_l) AS used, epoch_ms(min(window_start)) AS s, epoch_ms(max(window_end)) AS e
       FROM fuel_level WHERE account = $1 AND vehicle_id = $2`,
      [ACCOUNT, slot9.vehicle_id],
    );
    const burned = h.fleet.truth.fuelUsedL(slot9.vehicle_id, Number(w!.s), Number(w!.e));
    expect(Number(w!.used)).toBeCloseTo(burned, 0);
  });

  it('a level series that does not parse fails its windows with the reason and a sample; the next run fills them', async () => {
    h.sim.setFaults({
      fieldFault: { kind: 'fuel_level_history', field: 'liters', renameTo: 'level_litres' },
    });
    const db = await openDatabase(join(h.dir, 'payload.duckdb'));
    try {
      const req = { trigger: 'cli' as const, fromDay: h.firstDay, toDay: h.lastDay };
      const bad = await runSync({ ...h.deps, db }, req);
      expect(bad.outcome).toBe('partial');
      expect(bad.streams.fuel_level_history?.windows.failed).toBeGreaterThan(0);
      expect(bad.streams.trips?.windows.failed ?? 0).toBe(0);
      const con = await db.connect();
      const failed = (
        await con.runAndReadAll(
          "SELECT reason, sample FROM ledger WHERE status = 'failed' AND stream = 'fuel_level_history'",
        )
      ).getRowObjectsJS();
      const [stored] = (
        await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM fuel_level_history')
      ).getRowObjectsJS();
      con.closeSync();
      expect(String(failed[0]!.reason)).toMatch(/liters/);
      expect(String(failed[0]!.sample)).toContain('level_litres');
      expect(stored!.n).toBe(0); // nothing half-written
      h.sim.setFaults({});
      expect((await runSync({ ...h.deps, db }, req)).outcome).toBe('ok');
    } finally {
      db.close();
      h.sim.setFaults({});
    }
  });
});
