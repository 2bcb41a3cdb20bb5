/**
 * How prices reach SQL: the prices file is checked as a whole against what the database holds
 * (toll geofences, vehicles), then the account's five `price_*` tables (queries/schema/028) are
 * replaced in one transaction. A file with any problem is refused with one message listing every
 * problem (E_CONFIG, exit 2) before anything is written, so the prices stored stay those of the
 * last good file. Without FLEETSYNC_PRICES the stored prices stay as they are.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { inTransaction } from '../store/db.ts';
import { refreshTollChargeFacts } from '../store/facts.ts';
import { loadSql, queryJs } from '../store/queries.ts';
import { appendRows } from '../store/write.ts';
import { MAX_LISTED_PROBLEMS, userFileSha } from '../text-file.ts';
import { checkPrices, describeProblems, plate, readPricesFile, type Known, type Prices } from './file.ts';

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
  const { prices, problems } = checkPrices(readPricesFile(resolve(path)), await known(con, account));
  if (!prices)
    throw new FleetsyncError('E_CONFIG', describeProblems(path, problems), {
      details: { problems: problems.slice(0, MAX_LISTED_PROBLEMS), count: problems.length },
    });
  return prices;
}

const asDate = (day: string) => new Date(`${day}T00:00:00Z`);

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
    // Appended in bulk: a file of 100,000 tariffs was 100,000 statements (most of a minute).
    await appendRows(
      con,
      'price_fuel',
      p.fuel.map((f) => ({ account, fuel_type: f.fuel_type, period: f.month, price_per_l: f.price_per_l })),
    );
    await appendRows(
      con,
      'price_tolls',
      p.tolls.map((t) => ({
        account,
        geofence_id: t.geofence_id,
        vehicle_class: t.vehicle_class,
        valid_from: asDate(t.valid_from),
        valid_to: t.valid_to ? asDate(t.valid_to) : null,
        charge: t.charge,
      })),
    );
    await appendRows(
      con,
      'price_vehicles',
      p.vehicles.map((v) => ({
        account,
        vehicle_id: v.vehicle_id,
        fuel_type: v.fuel_type ?? null,
        vehicle_class: v.vehicle_class ?? null,
      })),
    );
    await appendRows(
      con,
      'price_emission_factors',
      Object.entries(p.emissionFactors).map(([fuel_type, kg_per_l]) => ({ account, fuel_type, kg_per_l })),
    );
    // the toll passages' charges kept in the daily facts rest on the tariffs and vehicle classes
    await refreshTollChargeFacts(con, account);
  });
}

/**
 * At start (serve, demo, export): when FLEETSYNC_PRICES names a file, check it and store it; a
 * bad file stops the command (exit 2) with its problems. A file whose contents (SHA-256) are
 * those already stored is not read again: the tables are its index, so a large file costs its
 * load once, not every export. Returns 'loaded', 'unchanged', or null without a file.
 */
export async function loadPricesFile(
  con: DuckDBConnection,
  account: string,
  config: Pick<Config, 'pricesFile'>,
  nowMs: number,
): Promise<'loaded' | 'unchanged' | null> {
  const path = config.pricesFile?.trim();
  if (!path) return null;
  const sha = userFileSha(resolve(path));
  const stored = (await queryJs(con, 'prices/stored_sha', { account }))[0]?.sha256;
  if (sha !== null && stored === sha) return 'unchanged';
  await storePrices(con, account, await readPrices(con, account, path), nowMs);
  return 'loaded';
}
