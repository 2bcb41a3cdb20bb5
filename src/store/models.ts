/**
 * The model layer's floor, below both the sync and the reports: a connection prepared here has
 * the temp macros of `queries/reports/macros/` (ISO local time, vehicle departments, "complete
 * through", spreadsheet-safe text; the models use some of them) and then the table macros of
 * `queries/models/`, the business rules each written once. The reports select from them; the sync
 * asks them about an answer (src/sync/rules.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadSql } from './queries.ts';

const MACROS = [
  'iso_local',
  'xl_text',
  'vehicle_departments',
  'complete_through',
  'driver_names',
  'trip_lookups',
];
/**
 * The model layer, in dependency order: the selected-vehicles filter, the reason-code
 * vocabulary, the local calendar, the odometer and fuel windows classified, the windows left out
 * of totals (from those two), the toll passage, prices and charges (from the toll passages), and
 * the coverage of every vehicle-day (which figures rest on synced days), …, and the daily facts
 * computed from them (what the day- and month-grain reports read).
 */
export const MODELS = [
  'selection',
  'reason_codes',
  'local_calendar',
  'odometer_windows',
  'fuel_windows',
  'left_out_windows',
  'toll_passages',
  'prices',
  'working_hours',
  'site_visits',
  'activity_days',
  'coverage',
  'logbook',
  'fuel_drops',
  'booking_status',
  'unknown_values',
  'driver_scores',
  'fuel_efficiency',
  'daily_facts',
  'service_due',
];
const prepared = new WeakSet<DuckDBConnection>();

/** Defines the report macros and the models on a connection (once per connection). */
export async function prepareModelConnection(con: DuckDBConnection): Promise<void> {
  if (prepared.has(con)) return;
  for (const m of MACROS) await con.run(loadSql(`reports/macros/${m}`));
  for (const m of MODELS) await con.run(loadSql(`models/${m}`));
  prepared.add(con);
}

/**
 * Puts the daily facts computed now from the raw rows in the place of the stored ones on this
 * connection (queries/sync/facts_use_raw.sql): every report over the facts then runs over the
 * raw tables, through the same models. For the comparison test; nothing in the product calls it.
 */
export async function useRawFacts(con: DuckDBConnection): Promise<void> {
  await prepareModelConnection(con);
  await con.run(loadSql('sync/facts_use_raw'));
}
