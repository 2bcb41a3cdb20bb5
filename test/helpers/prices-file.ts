/**
 * A prices file for a harness' fleet, loaded as `FLEETSYNC_PRICES` would load it: AUD, diesel at
 * 1.90 a litre in every month of its history, light vehicles, a tariff of 3 + i for every toll
 * gantry but the first (its passages have no tariff: blank, not free). `tariffs: false` gives no
 * gantry a tariff. Returns the gantry left without one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPricesFile } from '../../src/prices/store.ts';
import { localMonth } from '../../src/time.ts';
import { ACCOUNT, type Harness } from './synced.ts';

export async function loadHarnessPrices(h: Harness, { tariffs = true } = {}) {
  const zone = h.fleet.timezone;
  const months = [...new Set([localMonth(h.fleet.startMs, zone), localMonth(h.fleet.endMs - 1, zone)])];
  const tolls = h.fleet.geofences.filter((g) => g.is_toll);
  const file = join(h.dir, 'prices.json');
  writeFileSync(
    file,
    JSON.stringify({
      currency: 'AUD',
      defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
      fuel_prices: months.map((m) => ({ fuel_type: 'diesel', month: m, price_per_l: 1.9 })),
      toll_tariffs: tolls.slice(tariffs ? 1 : tolls.length).map((g, i) => ({
        geofence_id: g.geofence_id,
        vehicle_class: 'light',
        valid_from: '2026-01-01',
        charge: 3 + i,
      })),
    }),
  );
  const con = await h.db.connect();
  try {
    await loadPricesFile(con, ACCOUNT, { pricesFile: file }, h.now());
  } finally {
    con.closeSync();
  }
  return tolls[0]!;
}
