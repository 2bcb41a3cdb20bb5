/**
 * Refuels, fuel reconciliation, toll charges and costs/CO₂ on a synced simulator fleet, against
 * the simulator's ground truth and a prices file written here: the fill the API lists twice
 * appears once; each toll passage carries the tariff of its gantry and vehicle class on its local
 * day (a passage without one is blank and "no tariff", never 0); each vehicle-month's fuel cost,
 * tolls and CO₂ are the truth's litres × the file's price and factor, computed here independently.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPricesFile } from '../../src/prices/store.ts';
import type { JsonRow } from '../../src/reports/run.ts';
import type { SimVehicle } from '../../src/simulator/model.ts';
import {
  addDays,
  localDate,
  localDayBounds,
  localMonth,
  localMonthBounds,
  parseWireTimestamp,
} from '../../src/time.ts';
import { startSharedSync } from '../helpers/shared-sync.ts';
import { ACCOUNT, queryDb, type Harness } from '../helpers/synced.ts';

let h: Harness;
const ms = (iso: unknown) => parseWireTimestamp(String(iso))!;

// Vehicle roles of the simulator's first slots (src/simulator/gen/vehicles.ts): 0 CAN counter,
// 3 electric, 5 level sensor with a fill the API lists twice.
let can: SimVehicle;
let heavy: SimVehicle;
let ev: SimVehicle;
let level: SimVehicle;
let months: string[];
let tollIds: string[];
const DIESEL = 1.9;
const PETROL = 2.05;
/** light-class tariffs: every toll gantry, a new price from the 15th of the second month */
let change: string;
const lightCharge = (g: number, day: string) => (day >= change ? 5 + g : 3 + g);
/** heavy-class tariff: the first gantry only (the others have none: blank, never free) */
const HEAVY = 11.5;
/** electricity per kWh and kg CO₂ per kWh of the grid */
const KWH_PRICE = 0.3;
const GRID = 0.5;
/** The simulator's battery model (src/simulator/routes/ev.ts): 0.16 kWh per km driven. */
const KWH_PER_KM = 0.16;

beforeAll(async () => {
  const shared = await startSharedSync({ seed: 7, vehicles: 6, days: 40, endDay: '2026-04-20' });
  h = shared.h;
  expect(shared.first.outcome).toBe('ok');
  const vs = h.fleet.vehicles;
  [can, heavy, ev, level] = [vs[0]!, vs[4]!, vs[3]!, vs[5]!];
  const zone = h.fleet.timezone;
  months = [...new Set([localMonth(h.fleet.startMs, zone), localMonth(h.fleet.endMs - 1, zone)])];
  change = `${months[1]}-15`;
  tollIds = h.fleet.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id);
  const prices = {
    currency: 'AUD',
    defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
    fuel_prices: [
      ...months.map((m) => ({ fuel_type: 'diesel', month: m, price_per_l: DIESEL })),
      // petrol and electricity priced for the last month only: the first month's cost is unknown
      { fuel_type: 'petrol', month: months.at(-1), price_per_l: PETROL },
      { fuel_type: 'electric', month: months.at(-1), price_per_l: KWH_PRICE },
    ],
    grid_kg_per_kwh: GRID,
    toll_tariffs: [
      ...tollIds.flatMap((g, i) => [
        { geofence_id: g, vehicle_class: 'light', valid_from: '2020-01-01', charge: 3 + i },
        { geofence_id: g, vehicle_class: 'light', valid_from: change, charge: 5 + i },
      ]),
      { geofence_id: tollIds[0], vehicle_class: 'heavy', valid_from: '2020-01-01', charge: HEAVY },
    ],
    vehicles: [
      { registration: heavy.registration, vehicle_class: 'heavy' },
      { vehicle_id: level.vehicle_id, fuel_type: 'petrol' },
    ],
  };
  const file = join(h.dir, 'prices.json');
  writeFileSync(file, JSON.stringify(prices, null, 2));
  const con = await h.db.connect();
  try {
    await loadPricesFile(con, ACCOUNT, { pricesFile: file }, h.now());
  } finally {
    con.closeSync();
  }
}, 180_000);
afterAll(() => h?.close());

const range = () => ({ from: h.firstDay, to: h.lastDay });

describe('refuels', () => {
  it('lists every fill of the level-sensor vehicle once, the one the API lists twice too', async () => {
    const rows = (await h.report('refuels', range())).filter((r) => r.vehicle_id === level.vehicle_id);
    const truth = h.fleet
      .fillsOf(level.vehicle_id)
      .filter((f) => f.at_ms >= h.fleet.startMs && f.at_ms < h.fleet.endMs);
    expect(truth.some((f) => f.listed_twice)).toBe(true);
    expect(rows.map((r) => ms(r.fill_time))).toEqual(truth.map((f) => f.at_ms));
    const trips = h.fleet.tripsOf(level.vehicle_id);
    rows.forEach((r, i) => {
      const f = truth[i]!;
      expect(r.litres).toBeCloseTo(f.litres, 2);
      expect(r.location).toBe(f.location);
      expect(r.odometer_km).toBeCloseTo(f.odometer_m / 1000, 3);
      // the driver of the trip that ended just before the fill (the simulator fills at a trip's end)
      const before = trips.filter((t) => t.end_ms <= f.at_ms).at(-1)!;
      expect(r.driver_id).toBe(before.driver_id);
      // and by name, as everywhere a driver appears (GET /drivers)
      const d = h.fleet.drivers.find((x) => x.driver_id === before.driver_id);
      expect(r.driver_name).toBe(d ? `${d.first_name} ${d.last_name}` : null);
    });
  });

  it('names the driver of a fill beside the id (GET /drivers), as trips and bookings do', async () => {
    // the simulator's trips seldom carry a driver: give the trip that ended just before one fill
    // a listed driver, as the API does when the driver identified themselves
    const fill = (await h.report('refuels', range())).find((r) => r.vehicle_id === level.vehicle_id)!;
    const driver = h.fleet.drivers[0]!;
    await queryDb(
      h.db,
      `UPDATE trips SET driver_id = $1
       WHERE account = $2 AND vehicle_id = $3 AND end_time = (
         SELECT max(end_time) FROM trips WHERE account = $2 AND vehicle_id = $3 AND end_time <= $4::TIMESTAMPTZ)`,
      [driver.driver_id, ACCOUNT, level.vehicle_id, String(fill.fill_time)],
    );
    const rows = (await h.report('refuels', range())).filter((r) => r.driver_id !== null);
    expect(rows.map((r) => [r.fill_time, r.driver_id])).toContainEqual([fill.fill_time, driver.driver_id]);
    const names = new Map(h.fleet.drivers.map((d) => [d.driver_id, `${d.first_name} ${d.last_name}`]));
    for (const r of rows) expect(r.driver_name).toBe(names.get(String(r.driver_id)));
  });

  it('reconciles the month: litres filled as the fills, used as the fuel report, for the counter vehicle and the level-sensor one; blank without a level sensor', async () => {
    const rec = await h.report('fuel_reconciliation', range());
    const fuel = await h.report('fuel', range());
    for (const m of months) {
      const { startMs, endMs } = localMonthBounds(m, h.fleet.timezone);
      // the counter vehicle has a CAN level sensor too: its fills are pulled as the analog one's
      for (const v of [level, can]) {
        const r = rec.find((x) => x.vehicle_id === v.vehicle_id && x.period === m)!;
        const filled = h.fleet.fillsOf(v.vehicle_id).filter((f) => f.at_ms >= startMs && f.at_ms < endMs);
        expect(r.fills).toBe(filled.length);
        expect(r.filled_l).toBeCloseTo(
          filled.reduce((s, f) => s + f.litres, 0),
          2,
        );
        const used = fuel.find((x) => x.vehicle_id === v.vehicle_id && x.period === m)!.fuel_used_l;
        expect(Number(used)).toBeGreaterThan(0);
        expect(r.used_l).toBe(used);
        expect(r.difference_l).toBeCloseTo(Number(r.filled_l) - Number(used), 2);
      }
      // the electric vehicle has no level sensor: no fills are synced, blank, not 0
      const e = rec.find((x) => x.vehicle_id === ev.vehicle_id && x.period === m);
      if (e) expect([e.filled_l, e.fills, e.difference_l]).toEqual([null, null, null]);
    }
  });
});

/** The charge the prices file gives a truth passage (null = no tariff). */
const expectedCharge = (vehicleId: number, geofenceId: string, enterMs: number): number | null => {
  const g = tollIds.indexOf(geofenceId);
  if (vehicleId === heavy.vehicle_id) return g === 0 ? HEAVY : null;
  return lightCharge(g, localDate(enterMs, h.fleet.timezone));
};

describe('toll charges', () => {
  it('charges every passage by its gantry, class and day; no tariff is blank, never 0', async () => {
    const rows = await h.report('toll_charges', range());
    const truth = h.fleet.truth.tollVisits(h.fleet.startMs, h.fleet.endMs);
    expect(rows.length).toBe(truth.length);
    const key = (v: number, g: string, t: number) => `${v}|${g}|${t}`;
    const byKey = new Map(
      rows.map((r) => [key(Number(r.vehicle_id), String(r.geofence_id), ms(r.enter_time)), r]),
    );
    let noTariff = 0;
    let changed = 0;
    for (const v of truth) {
      const r = byKey.get(key(v.vehicle_id, v.geofence_id, v.enter_ms))!;
      const want = expectedCharge(v.vehicle_id, v.geofence_id, v.enter_ms);
      expect(r.charge).toBe(want);
      expect(r.tariff_status).toBe(want === null ? 'no_tariff' : 'tariff');
      if (want === null) noTariff++;
      if (r.tariff_valid_from === change) changed++;
    }
    // the fixture exercises both the missing tariff and the change of tariff
    expect(noTariff).toBeGreaterThan(0);
    expect(changed).toBeGreaterThan(0);
  });
});

describe('costs and CO₂ per vehicle and month', () => {
  let costs: JsonRow[];
  beforeAll(async () => {
    costs = await h.report('costs', range());
  });
  const row = (v: SimVehicle, m: string) =>
    costs.find((r) => r.vehicle_id === v.vehicle_id && r.period === m)!;

  it('fuel cost and CO₂ of the diesel counter vehicle = the truth litres × the price and 2.68 kg/L', () => {
    for (const m of months) {
      const { startMs, endMs } = localMonthBounds(m, h.fleet.timezone);
      const litres = h.fleet.truth.fuelUsedL(can.vehicle_id, startMs, endMs);
      const km = h.fleet.truth.distanceM(can.vehicle_id, startMs, endMs) / 1000;
      const r = row(can, m);
      expect(r.fuel_type).toBe('diesel');
      expect(Number(r.fuel_used_l)).toBeCloseTo(litres, 1);
      expect(Number(r.distance_km)).toBeCloseTo(km, 1);
      expect(Number(r.fuel_cost)).toBeCloseTo(litres * DIESEL, 1);
      expect(Number(r.co2_kg)).toBeCloseTo(litres * 2.68, 0);
      const tolls = h.fleet.truth
        .tollVisits(startMs, endMs)
        .filter((v) => v.vehicle_id === can.vehicle_id)
        .reduce((s, v) => s + expectedCharge(v.vehicle_id, v.geofence_id, v.enter_ms)!, 0);
      expect(r.toll_charges).toBeCloseTo(tolls, 2);
      expect(Number(r.cost_per_km)).toBeCloseTo((litres * DIESEL + tolls) / km, 2);
    }
  });

  it('petrol: 2.31 kg/L; a month without a petrol price has a blank fuel cost and cost per km', () => {
    const [first, last] = [months[0]!, months.at(-1)!];
    const f = row(level, first);
    expect(f.fuel_type).toBe('petrol');
    expect(Number(f.fuel_used_l)).toBeGreaterThan(0);
    expect(f.fuel_cost).toBeNull();
    expect(f.cost_per_km).toBeNull();
    expect(Number(f.co2_kg)).toBeCloseTo(Number(f.fuel_used_l) * 2.31, 1);
    const l = row(level, last);
    expect(Number(l.fuel_cost)).toBeCloseTo(Number(l.fuel_used_l) * PETROL, 1);
  });

  it('a month with a passage without a tariff has blank toll charges, counting the passages left out', () => {
    const months_ = costs.filter((r) => r.vehicle_id === heavy.vehicle_id && Number(r.toll_no_tariff) > 0);
    expect(months_.length).toBeGreaterThan(0);
    for (const r of months_) {
      expect(r.vehicle_class).toBe('heavy');
      expect(r.toll_charges).toBeNull();
      expect(r.cost_per_km).toBeNull();
    }
  });

  it('the electric vehicle: energy per synced local day from the API; cost = kWh × the price, CO₂ = kWh × the grid factor', () => {
    const zone = h.fleet.timezone;
    for (const m of months) {
      // the truth: every local day of the month in the synced history, the kWh the battery model
      // draws for its distance, rounded to 0.1 kWh per day as the API answers
      let kwh = 0;
      let days = 0;
      for (let d = h.firstDay; d <= h.lastDay; d = addDays(d, 1)) {
        if (!d.startsWith(m)) continue;
        const { startMs, endMs } = localDayBounds(d, zone);
        kwh +=
          Math.round((h.fleet.truth.distanceM(ev.vehicle_id, startMs, endMs) / 1000) * KWH_PER_KM * 10) / 10;
        days++;
      }
      const r = row(ev, m);
      expect(r.fuel_type).toBe('electric');
      expect(r.fuel_used_l).toBeNull();
      expect(r.energy_days).toBe(days);
      // a 25-hour day (the clocks went back) is two ≤ 24 h requests, each rounded: within 0.1 kWh
      expect(Math.abs(Number(r.energy_kwh) - kwh)).toBeLessThanOrEqual(0.1 + 1e-9);
      expect(Number(r.energy_kwh)).toBeGreaterThan(10);
      expect(Number(r.co2_kg)).toBeCloseTo(Number(r.energy_kwh) * GRID, 2);
      if (m === months.at(-1)) expect(Number(r.fuel_cost)).toBeCloseTo(Number(r.energy_kwh) * KWH_PRICE, 2);
      else {
        // no electricity price for the first month: the cost is unknown, not 0
        expect(r.fuel_cost).toBeNull();
        expect(r.cost_per_km).toBeNull();
      }
    }
    // the combustion vehicles have no battery energy: blank, not 0
    expect(row(can, months[0]!).energy_kwh).toBeNull();
  });

  it('distance and fuel tie to the mileage and fuel reports', async () => {
    const mileage = await h.report('mileage', range());
    const fuel = await h.report('fuel', range());
    for (const m of mileage) {
      const r = costs.find((x) => x.vehicle_id === m.vehicle_id && x.period === m.period)!;
      expect(r.distance_km).toBe(m.distance_km);
    }
    for (const f of fuel) {
      const r = costs.find((x) => x.vehicle_id === f.vehicle_id && x.period === f.period)!;
      expect(r.fuel_used_l).toBe(f.fuel_used_l);
    }
  });
});

describe('costs per department', () => {
  it('sums its vehicles: distance and known charges add up; a sum with an unknown vehicle-month is blank', async () => {
    const costs = await h.report('costs', range());
    const deps = await h.report('cost_departments', range());
    expect(deps.length).toBeGreaterThan(2);
    // the vehicles without a department are the "no department" row (issue 25)
    const dept = (r: { department?: unknown }) => r.department ?? 'no department';
    expect(deps.filter((d) => d.department === null)).toEqual([]);
    for (const d of deps) {
      const mine = costs.filter((r) => dept(r) === d.department && r.period === d.period);
      const label = `${String(d.department)} ${String(d.period)}`;
      expect(d.vehicles, label).toBe(mine.length);
      expect(Number(d.distance_km), label).toBeCloseTo(
        mine.reduce((s, r) => s + Number(r.distance_km ?? 0), 0),
        2,
      );
      const tollsKnown = mine.every((r) => r.toll_charges !== null);
      if (tollsKnown)
        expect(Number(d.toll_charges), label).toBeCloseTo(
          mine.reduce((s, r) => s + Number(r.toll_charges), 0),
          2,
        );
      else expect(d.toll_charges, label).toBeNull();
      const unknown = mine.filter(
        (r) => Number(r.distance_km) > 0 && (r.fuel_cost === null || r.toll_charges === null),
      ).length;
      expect(d.unknown_vehicle_months, label).toBe(unknown);
      if (unknown > 0) expect(d.cost_per_km, label).toBeNull();
    }
    // the heavy vehicle's passages without a tariff make its department's toll charges unknown
    const heavyDept = costs.find((r) => r.vehicle_id === heavy.vehicle_id && Number(r.toll_no_tariff) > 0)!;
    expect(
      deps.find((d) => d.department === dept(heavyDept) && d.period === heavyDept.period)!.toll_charges,
    ).toBeNull();
  });
});
