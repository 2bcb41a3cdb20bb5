/**
 * The demo's prices file, written beside the demo database when FLEETSYNC_PRICES is not set, so
 * the demo shows costs and CO₂: diesel and petrol prices for every local month of the simulated
 * history (and electricity per kWh for the electric vehicles, with a grid factor for their CO₂),
 * a tariff per toll gantry for light vehicles, and the Logistics vehicles as heavy with no
 * heavy tariffs, so their passages show as "no tariff" (blank, never free). Every gantry has its
 * light tariff: one unpriced gantry that every vehicle passes would leave every department-month's
 * toll charges and cost per km blank, and the demo would show those columns empty.
 */
import { writeFileSync } from 'node:fs';
import type { Fleet } from '../simulator/model.ts';
import { DAY_MS, localMonth } from '../time.ts';

export function demoPrices(fleet: Fleet) {
  const months: string[] = [];
  for (let ms = fleet.startMs; ms < fleet.endMs; ms += DAY_MS) {
    const m = localMonth(ms, fleet.timezone);
    if (!months.includes(m)) months.push(m);
  }
  const tolls = fleet.geofences.filter((g) => g.is_toll);
  return {
    currency: 'AUD',
    defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
    fuel_prices: months.flatMap((m, i) => [
      { fuel_type: 'diesel', month: m, price_per_l: Math.round((1.85 + 0.03 * i) * 1000) / 1000 },
      { fuel_type: 'petrol', month: m, price_per_l: Math.round((1.95 + 0.02 * i) * 1000) / 1000 },
      { fuel_type: 'electric', month: m, price_per_l: 0.32 }, // per kWh
    ]),
    toll_tariffs: tolls.map((g, i) => ({
      geofence_id: g.geofence_id,
      vehicle_class: 'light',
      valid_from: '2000-01-01',
      charge: 2.5 + i,
    })),
    vehicles: fleet.vehicles.flatMap((v) => [
      ...(v.powertrain === 'analog' ? [{ vehicle_id: v.vehicle_id, fuel_type: 'petrol' }] : []),
      ...(v.department === 'Logistics' ? [{ vehicle_id: v.vehicle_id, vehicle_class: 'heavy' }] : []),
    ]),
    // kg CO₂-e per kWh from the grid (Australia's NSW grid, scope 2, National Greenhouse Accounts Factors)
    grid_kg_per_kwh: 0.66,
  };
}

/** Writes the demo prices file; returns its path. */
export function writeDemoPrices(fleet: Fleet, path: string): string {
  writeFileSync(path, JSON.stringify(demoPrices(fleet), null, 2) + '\n');
  return path;
}
