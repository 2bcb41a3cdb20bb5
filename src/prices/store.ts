/**
 * How prices reach SQL: the prices file is checked as a whole against what the database holds
 * (toll geofences, vehicles), then the account's five `price_*` tables (queries/schema/028) are
 * replaced in one transaction. A file with any problem is refused with one message listing every
 * problem (E_CONFIG, exit 2) before anything is written, so the prices stored stay those of the
 * last good file. Without FLEETSYNC_PRICES the stored prices stay as they are.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { resolve } from 'node:path';
import { FleetsyncError } from '../errors.ts';
import { inTransaction } from '../store/db.ts';
import { loadSql } from '../store/queries.ts';
import { checkPrices, describeProblems, plate, readPricesFile, type Known, type Prices } from './file.ts';

export const PRICES_ENV = 'FLEETSYNC_PRICES';

async function known(con: DuckDBConnection, account: string): Promise<Known> {
  const rows = async (sql: string) => (await con.runAndReadAll(sql, [account])).getRowObjectsJS();
  const geo = await rows('SELECT geofence_id, is_toll FROM geofences WHERE account = $1');
  const veh = await rows('SELECT vehicle_id, registration FROM vehicles WHERE account = $1');
  return {
    tollGeofences: geo.length
      ? new Set(geo.filter((g) => g.is_toll).map((g) => String(g.geofence_id)))
      : null,
    vehicles: veh.length
      ? new Map(veh.map((v) => [plate(String(v.registration)), Number(v.vehicle_id)]))
      : null,
  };
}

/** Reads and checks a prices file against the account's data; throws E_CONFIG listing every problem. */
export async function readPrices(con: DuckDBConnection, account: string, path: string): Promise<Prices> {
  const raw = readPricesFile(resolve(path));
  const { prices, problems } = checkPrices(raw, await known(con, account));
  if (!prices)
    throw new FleetsyncError('E_CONFIG', describeProblems(path, problems), { details: { problems } });
  return prices;
}

/** Replaces the account's stored prices with `p`, whole or not at all. */
export async function storePrices(con: DuckDBConnection, account: string, p: Prices, nowMs: number) {
  await inTransaction(con, async () => {
    for (const t of ['price_fuel', 'price_tolls', 'price_vehicles', 'price_emission_factors', 'price_source'])
      await con.run(`DELETE FROM ${t} WHERE account = $1`, [account]);
    await con.run(loadSql('prices/insert_source'), {
      account,
      path: p.file,
      sha256: p.sha256,
      loaded_ms: nowMs,
      currency: p.currency,
      fuel_type: p.defaults.fuel_type,
      vehicle_class: p.defaults.vehicle_class,
      grid: p.gridKgPerKwh,
    });
    for (const f of p.fuel)
      await con.run('INSERT INTO price_fuel VALUES ($1, $2, $3, $4)', [
        account,
        f.fuel_type,
        f.month,
        f.price_per_l,
      ]);
    for (const t of p.tolls)
      await con.run(loadSql('prices/insert_toll'), {
        account,
        geofence_id: t.geofence_id,
        vehicle_class: t.vehicle_class,
        valid_from: t.valid_from,
        valid_to: t.valid_to ?? null,
        charge: t.charge,
      });
    for (const v of p.vehicles)
      await con.run('INSERT INTO price_vehicles VALUES ($1, $2, $3, $4)', [
        account,
        v.vehicle_id,
        v.fuel_type ?? null,
        v.vehicle_class ?? null,
      ]);
    for (const [fuelType, kg] of Object.entries(p.emissionFactors))
      await con.run('INSERT INTO price_emission_factors VALUES ($1, $2, $3)', [account, fuelType, kg]);
  });
}

/**
 * At start (serve, demo, export): when FLEETSYNC_PRICES names a file, check it and store it; a
 * bad file stops the command (exit 2) with every problem. Returns what was loaded, or null.
 */
export async function loadPricesFromEnv(
  con: DuckDBConnection,
  account: string,
  env: Record<string, string | undefined>,
  nowMs: number,
): Promise<Prices | null> {
  const path = env[PRICES_ENV]?.trim();
  if (!path) return null;
  const prices = await readPrices(con, account, path);
  await storePrices(con, account, prices, nowMs);
  return prices;
}
