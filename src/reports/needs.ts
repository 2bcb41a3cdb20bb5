/**
 * The streams each report reads (by their `streams/*.ts` names) — or, for a stream that calls
 * several endpoints, the one endpoint (`METHOD /path`) whose data it reads — so that a report whose data come
 * from an endpoint the account may not read or does not have (sync/access.ts) says so — "not
 * available for these credentials" on the dashboard — instead of showing an empty or zero
 * figure (driver names included: a report that names drivers lists `drivers`). Reports not listed
 * read no stream an account can be refused (runs, coverage); test/reports/needs.test.ts
 * checks the list against what DuckDB's parse of the reports' SQL reads, through the models.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { EndpointRefusal } from '../server/api-types.ts';
import { endpointsRefused } from '../status/report.ts';
import { BUILTIN_STREAMS } from '../sync/streams/index.ts';

const FUEL = ['fuel'];
/** Toll passages and site visits: the visits, at the geofences flagged toll / named a site. */
const VISITS = ['visits', 'geofences'];
const CARPOOL = ['bookings'];
const CARPOOL_VEHICLES = 'GET /carpool/vehicles';
const CARPOOL_DRIVERS = 'GET /carpool/drivers';

export const REPORT_STREAMS: Readonly<Record<string, readonly string[]>> = {
  mileage: ['odometer'],
  mileage_windows: ['odometer'],
  excluded_odometer_windows: ['odometer', 'trips'], // the km left out: the trip log
  fuel: FUEL,
  fuel_windows: FUEL,
  excluded_fuel_windows: FUEL,
  refuels: [...FUEL, 'trips', 'drivers'],
  fuel_drops: ['fuel_level_history', 'trips'], // parked: the trips synced over the drop
  fuel_reconciliation: FUEL,
  excluded_windows: ['odometer', ...FUEL],
  tolls: VISITS,
  toll_gantries: VISITS,
  toll_charges: VISITS,
  trips: ['trips', 'drivers'],
  carpool: [...CARPOOL, 'drivers'],
  carpool_departments: [...CARPOOL, CARPOOL_VEHICLES],
  carpool_status: CARPOOL,
  setup_health: [CARPOOL_VEHICLES, CARPOOL_DRIVERS],
  vehicles: [CARPOOL_VEHICLES], // its `carpool` column
  kpis: ['odometer', ...FUEL, ...VISITS, 'trips', ...CARPOOL],
  trend: ['odometer', ...VISITS, 'trips', ...CARPOOL], // odometer: the days synced
  top_vehicles: ['odometer', ...FUEL, ...VISITS, 'trips'],
  costs: ['odometer', ...FUEL, 'ev_energy', ...VISITS], // electric vehicles: the energy charged
  cost_departments: ['odometer', ...FUEL, 'ev_energy', ...VISITS],
  utilisation: ['activity', 'trips'], // after hours: the trips
  utilisation_days: ['activity', 'trips'],
  drivers: ['drivers', 'trips', ...CARPOOL],
  logbook: ['trips', 'odometer', 'drivers'],
  logbook_years: ['trips', 'odometer'],
  driver_scores: ['drivers', 'trips'],
  fuel_efficiency: ['odometer', ...FUEL],
  fuel_efficiency_drivers: ['odometer', ...FUEL, 'trips', 'drivers'],
  site_visits: VISITS,
  site_activity: VISITS,
  service_due: ['odometer'],
};

/**
 * The streams each column of the daily facts (queries/schema/088_daily_facts.sql, computed by
 * queries/models/daily_facts.sql) comes from, so that a report reading a figure from the facts
 * declares the streams under it. [] for a key, or for a column of every fact-bearing stream whose
 * row's `stream` value names the stream (windows, left_out, last_window_end: the report's
 * `stream = '…'` says which). test/reports/needs.test.ts checks this against the table's and the
 * model's columns, so a column added to the facts must say here where it comes from.
 */
export const FACT_COLUMN_STREAMS: Readonly<Record<string, readonly string[]>> = {
  account: [],
  stream: [],
  vehicle_id: [],
  day: [],
  windows: [],
  left_out: [],
  distance_m: ['odometer'],
  used_l: ['fuel'],
  last_window_end: [],
  trips: ['trips'],
  trip_distance_m: ['trips'],
  toll_passages: VISITS, // toll_passages(): the visits at geofences flagged toll
  // the toll passages priced (toll_passage_charges): the same visits, with the prices file's tariffs
  toll_no_tariff: VISITS,
  toll_charged: VISITS,
  toll_charged_rounded: VISITS,
  after_hours_s: ['trips'], // trip_after_hours: the trips against the working hours
  driving_s: ['activity'],
  idle_s: ['activity'],
  first_ignition_on: ['activity'],
  last_ignition_off: ['activity'],
};

/**
 * The streams a report reads that are synced by day, each with its ledger streams (the day
 * coverage's): what the XLSX About sheet states the coverage of. The lists (drivers, geofences,
 * the carpool lists) have no days: their refusal is stated on its own.
 */
export function coverageStreamsOf(
  report: string,
): { stream: string; ledger: readonly string[]; perVehicle: boolean }[] {
  return (REPORT_STREAMS[report] ?? []).flatMap((stream) => {
    const d = BUILTIN_STREAMS.find((x) => x.name === stream);
    return d?.ledgerStreams.length
      ? [{ stream, ledger: d.ledgerStreams, perVehicle: d.scope === 'vehicle' }]
      : [];
  });
}

/** The endpoints refused to `account` that a report's streams need (none: the report is whole). */
export async function unavailableFor(
  con: DuckDBConnection,
  account: string,
  report: string,
  zone: string,
): Promise<EndpointRefusal[]> {
  const streams = REPORT_STREAMS[report] ?? [];
  if (!streams.length) return [];
  return (await endpointsRefused(con, zone)).filter(
    (e) =>
      e.account === account && (streams.includes(e.endpoint) || e.streams.some((s) => streams.includes(s))),
  );
}
