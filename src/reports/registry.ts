/**
 * The report registry: each report names its query file (`queries/reports/<name>.sql`), its
 * columns (unit in the name, `kind` for formatting and spreadsheet safety) and which optional
 * parameters it takes. The JSON API, the CSV/Parquet/Arrow exports and the dashboard all run the
 * same file, so they cannot disagree.
 */
export type ColumnKind = 'text' | 'number' | 'integer' | 'boolean' | 'time' | 'day' | 'month';

export interface ColumnDef {
  name: string;
  kind: ColumnKind;
  /** Summed in the dashboard's totals row. */
  total?: boolean;
  /**
   * Holds reason codes (queries/models/reason_codes.sql): exports carry the code, the dashboard
   * shows its label.
   */
  reasonCodes?: boolean;
}

export interface ReportDef {
  name: string;
  title: string;
  grain: string;
  columns: readonly ColumnDef[];
  /** Extra parameters beyond from/to/month/vehicle/department. */
  extra: readonly ('grain' | 'limit')[];
}

/** A column; its name and kind stay literal types, so the API's row types derive from them. */
const c = <const N extends string, const K extends ColumnKind>(name: N, kind: K, total = false) =>
  ({ name, kind, ...(total ? { total } : {}) }) as ColumnDef & { name: N; kind: K };
const vehicleCols = [c('registration', 'text'), c('vehicle_id', 'integer'), c('department', 'text')] as const;
/** A `reason` column of reason codes. */
const reasonCol = { name: 'reason', kind: 'text', reasonCodes: true } as const satisfies ColumnDef;

const defs = [
  {
    name: 'mileage',
    title: 'Mileage per vehicle and month',
    grain: 'vehicle × local month',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('distance_km', 'number', true),
      c('excluded_periods', 'integer', true),
      c('complete', 'boolean'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'fuel',
    title: 'Fuel used per vehicle and month',
    grain: 'vehicle × local month',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('fuel_used_l', 'number', true),
      c('excluded_periods', 'integer', true),
      c('source', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'tolls',
    title: 'Toll passages',
    grain: 'one toll visit',
    columns: [
      ...vehicleCols,
      c('geofence_id', 'text'),
      c('geofence_name', 'text'),
      c('enter_time', 'time'),
      c('exit_time', 'time'),
      c('duration_s', 'number'),
      c('local_date', 'day'),
      c('utc_date', 'day'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'toll_gantries',
    title: 'Toll passages per gantry',
    grain: 'toll geofence',
    columns: [
      c('geofence_id', 'text'),
      c('geofence_name', 'text'),
      c('passages', 'integer', true),
      c('vehicles', 'integer'),
      c('duration_s', 'number'),
      c('first_passage', 'time'),
      c('last_passage', 'time'),
    ],
    extra: [],
  },
  {
    name: 'trips',
    title: 'Trips',
    grain: 'one trip (start inside the range)',
    columns: [
      c('trip_id', 'text'),
      ...vehicleCols,
      c('start_time', 'time'),
      c('end_time', 'time'),
      c('distance_km', 'number', true),
      c('start_odometer_km', 'number'),
      c('end_odometer_km', 'number'),
      c('driver_id', 'text'),
      c('start_location', 'text'),
      c('end_location', 'text'),
      c('local_date', 'day'),
      c('utc_date', 'day'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'carpool',
    title: 'Carpool bookings',
    grain: 'one booking (scheduled window overlaps the range)',
    columns: [
      c('booking_id', 'integer'),
      ...vehicleCols,
      c('driver_id', 'text'),
      c('booking_status', 'text'),
      c('is_late', 'boolean'),
      c('is_approved', 'boolean'),
      c('start_time', 'time'),
      c('end_time', 'time'),
      c('picked_up_at', 'time'),
      c('returned_at', 'time'),
      c('created_at', 'time'),
      c('booking_department', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'kpis',
    title: 'Fleet KPIs',
    grain: 'one row for the range',
    columns: [
      c('distance_km', 'number'),
      c('excluded_odometer_windows', 'integer'),
      c('fuel_used_l', 'number'),
      c('excluded_fuel_windows', 'integer'),
      c('toll_passages', 'integer'),
      c('trips', 'integer'),
      c('bookings', 'integer'),
      c('late_returns', 'integer'),
      // the late-return rate's denominator: bookings picked up (active or returned)
      c('checked_out', 'integer'),
      c('late_return_rate', 'number'),
      c('vehicles', 'integer'),
      c('complete_through', 'time'),
      c('complete_through_day', 'day'),
      c('last_run_id', 'text'),
      c('last_run_outcome', 'text'),
      c('last_run_ended_at', 'time'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'trend',
    title: 'Activity by day, week or month',
    grain: 'local day, ISO week or month',
    columns: [
      c('period', 'text'),
      c('trips', 'integer', true),
      c('trip_distance_km', 'number', true),
      c('toll_passages', 'integer', true),
      c('bookings', 'integer', true),
      c('late_returns', 'integer', true),
    ],
    extra: ['grain'],
  },
  {
    name: 'top_vehicles',
    title: 'Top vehicles by distance',
    grain: 'vehicle',
    columns: [
      ...vehicleCols,
      c('distance_km', 'number', true),
      c('excluded_periods', 'integer', true),
      c('fuel_used_l', 'number', true),
      c('toll_passages', 'integer', true),
      c('trips', 'integer', true),
    ],
    extra: ['limit'],
  },
  {
    name: 'mileage_windows',
    title: 'Odometer windows behind the mileage',
    grain: 'one odometer window (local months the range touches)',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      c('counted', 'boolean'),
      c('counted_km', 'number', true),
      c('reported_distance_km', 'number', true),
      reasonCol,
      c('start_odometer_km', 'number'),
      c('end_odometer_km', 'number'),
      c('last_event_at', 'time'),
      c('ledger_status', 'text'),
      c('ledger_reason', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'fuel_windows',
    title: 'Fuel windows behind the fuel used',
    grain: 'one fuel counter (or level-estimate) window (local months the range touches)',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      c('counter_start_l', 'number'),
      c('counter_end_l', 'number'),
      c('fuel_used_l', 'number', true),
      c('status', 'text'),
      c('reason', 'text'),
      c('reported_used_l', 'number'),
      c('source', 'text'),
      c('ledger_status', 'text'),
      c('ledger_reason', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'excluded_windows',
    title: 'Windows left out of totals',
    grain: 'one excluded window',
    columns: [
      ...vehicleCols,
      c('stream', 'text'),
      c('period', 'month'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      reasonCol,
      c('ledger_reason', 'text'),
      c('reported_distance_km', 'number'),
      c('counter_start_l', 'number'),
      c('counter_end_l', 'number'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'excluded_odometer_windows',
    title: 'Odometer windows left out of mileage',
    grain: 'one flagged odometer window (odometer_reset / terminal_has_changed)',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      reasonCol,
      c('left_out_km', 'number', true),
      c('reported_distance_km', 'number'),
      c('start_odometer_km', 'number'),
      c('end_odometer_km', 'number'),
      c('ledger_reason', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'excluded_fuel_windows',
    title: 'Fuel-counter windows left out of fuel used',
    grain: 'one fuel-counter window whose counter went down or lacks a reading',
    columns: [
      ...vehicleCols,
      c('period', 'month'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      reasonCol,
      c('counter_start_l', 'number'),
      c('counter_end_l', 'number'),
      c('ledger_reason', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'incomplete_windows',
    title: 'Incomplete and failed windows',
    grain: 'one ledger window',
    columns: [
      c('stream', 'text'),
      c('scope', 'text'),
      c('registration', 'text'),
      c('status', 'text'),
      c('window_start', 'time'),
      c('window_end', 'time'),
      c('span_h', 'number'),
      c('reason', 'text'),
      c('last_event_at', 'time'),
      c('fetched_at', 'time'),
      c('run_id', 'text'),
      c('zone', 'text'),
    ],
    extra: [],
  },
  {
    name: 'coverage',
    title: 'Coverage calendar (odometer)',
    grain: 'vehicle × local day',
    columns: [...vehicleCols, c('day', 'day'), c('status', 'text'), c('covered_share', 'number')],
    extra: [],
  },
  {
    name: 'carpool_departments',
    title: 'Carpool by department',
    grain: 'department',
    columns: [
      c('department', 'text'),
      c('bookings', 'integer', true),
      c('checked_out', 'integer', true),
      c('late_returns', 'integer', true),
      c('late_return_rate', 'number'),
      c('approved', 'integer', true),
      c('declined', 'integer', true),
      c('no_shows', 'integer', true),
      c('median_approval_turnaround_h', 'number'),
      c('booked_h', 'number', true),
      c('carpool_vehicles', 'integer', true),
      c('available_h', 'number', true),
      c('utilisation', 'number'),
    ],
    extra: [],
  },
  {
    name: 'carpool_status',
    title: 'Bookings by status',
    grain: 'booking status',
    columns: [c('booking_status', 'text'), c('bookings', 'integer', true), c('share', 'number')],
    extra: [],
  },
  {
    name: 'setup_health',
    title: 'Carpool setup health',
    grain: 'one driver or vehicle in SETUP_INCOMPLETE',
    columns: [
      c('kind', 'text'),
      c('id', 'text'),
      c('name', 'text'),
      c('department', 'text'),
      c('setup_status', 'text'),
      c('reason', 'text'),
    ],
    extra: [],
  },
  {
    name: 'runs',
    title: 'Sync runs',
    grain: 'one run (newest first)',
    columns: [
      c('run_id', 'text'),
      c('trigger', 'text'),
      c('outcome', 'text'),
      c('started_at', 'time'),
      c('ended_at', 'time'),
      c('duration_s', 'number'),
      c('range_from', 'day'),
      c('range_to', 'day'),
      c('streams', 'text'),
      c('requests', 'integer', true),
      c('retries', 'integer', true),
      c('http_429', 'text'),
      c('windows_by_stream', 'text'),
      c('errors', 'text'),
      c('notes', 'text'),
      c('zone', 'text'),
    ],
    extra: ['limit'],
  },
  {
    name: 'vehicles',
    title: 'Vehicles',
    grain: 'vehicle',
    columns: [...vehicleCols, c('fuel_source', 'text'), c('carpool', 'boolean')],
    extra: [],
  },
] as const satisfies readonly ReportDef[];

/** The reports as declared, names and columns as literal types (src/server/api-types.ts reads them). */
export type ReportDefs = typeof defs;

export const REPORTS: ReadonlyMap<string, ReportDef> = new Map(defs.map((d) => [d.name, d]));
export const REPORT_NAMES: readonly string[] = defs.map((d) => d.name);

export function getReport(name: string): ReportDef | undefined {
  return REPORTS.get(name);
}

/** The query file of a report, as `loadSql` names it. */
export const queryName = (def: ReportDef): string => `reports/${def.name}`;
