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

const FUEL = ['fuel', 'fuel_level_history'];
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
  fuel_drops: [...FUEL, 'trips'], // parked: the trips synced over the drop
  fuel_reconciliation: FUEL,
  excluded_windows: ['odometer', ...FUEL],
  tolls: ['visits'],
  toll_gantries: ['visits'],
  toll_charges: ['visits'],
  trips: ['trips', 'drivers'],
  carpool: [...CARPOOL, 'drivers'],
  carpool_departments: [...CARPOOL, CARPOOL_VEHICLES],
  carpool_status: CARPOOL,
  setup_health: [CARPOOL_VEHICLES, CARPOOL_DRIVERS],
  vehicles: [CARPOOL_VEHICLES], // its `carpool` column
  kpis: ['odometer', ...FUEL, 'visits', 'trips', ...CARPOOL],
  trend: ['odometer', ...FUEL, 'trips', ...CARPOOL],
  top_vehicles: ['odometer', ...FUEL, 'trips'],
  costs: ['odometer', ...FUEL, 'visits'],
  cost_departments: ['odometer', ...FUEL, 'visits'],
  utilisation: ['activity', 'trips'], // after hours: the trips
  utilisation_days: ['activity', 'trips'],
  drivers: ['drivers', 'trips', ...CARPOOL],
  logbook: ['trips', 'odometer', 'drivers'],
  logbook_years: ['trips', 'odometer'],
  driver_scores: ['drivers', 'trips'],
  fuel_efficiency: ['odometer', ...FUEL],
  fuel_efficiency_drivers: ['odometer', ...FUEL, 'trips', 'drivers'],
  site_visits: ['visits'],
  site_activity: ['visits'],
  service_due: ['odometer'],
};

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
