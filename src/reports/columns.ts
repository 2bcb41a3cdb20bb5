/**
 * How people read a report column: its label, unit, fixed decimal places and display kind, and
 * the labels of its enum values. The registry (registry.ts) says what a column *is* (name, storage
 * kind, whether a total means something); this module says how it is *shown* — by the dashboard,
 * XLSX downloads and CSV files asked for human headers. Machine headers (the column names) never
 * change: integrations depend on them.
 *
 * Presentation is keyed by column name, because a name means the same thing in every report
 * (`distance_km` is always kilometres with one decimal); a report can override an entry by
 * `<report>.<column>`. Every column of every report must have an entry (test/reports/columns.test.ts).
 */
import type { ColumnDef } from './registry.ts';

/**
 * integer / decimal (fixed `places`) / percent (a share 0–1 shown ×100 with `places`) / date (a
 * local day) / datetime (a local instant, shown in the account's zone) / month (YYYY-MM) /
 * duration (seconds, shown as h:mm:ss) / id (an identifier, always text, never a number) / enum
 * (codes shown by their labels) / text / boolean.
 */
export type Display =
  | 'integer'
  | 'decimal'
  | 'percent'
  | 'date'
  | 'datetime'
  | 'month'
  | 'duration'
  | 'id'
  | 'enum'
  | 'text'
  | 'boolean';

export interface Presentation {
  /** The header people read, without the unit. */
  label: string;
  /** The unit, shown once in the header ("Distance (km)"), never in the cells. */
  unit?: string;
  display: Display;
  /** Fixed decimal places for decimal and percent columns. */
  places?: number;
  /** Labels of enum codes; a code without a label is shown as it is. */
  values?: Readonly<Record<string, string>>;
}

type Entry = Omit<Presentation, 'display'> & { display?: Display };

const km = (label: string): Entry => ({ label, unit: 'km', display: 'decimal', places: 1 });
const litres = (label: string): Entry => ({ label, unit: 'L', display: 'decimal', places: 1 });
const hours = (label: string): Entry => ({ label, unit: 'h', display: 'decimal', places: 1 });
const count = (label: string): Entry => ({ label, display: 'integer' });
const when = (label: string): Entry => ({ label, display: 'datetime' });
const day = (label: string): Entry => ({ label, display: 'date' });
const id = (label: string): Entry => ({ label, display: 'id' });
const text = (label: string): Entry => ({ label, display: 'text' });
const percent = (label: string): Entry => ({ label, unit: '%', display: 'percent', places: 1 });
const flag = (label: string): Entry => ({ label, display: 'boolean' });
const per100 = (label: string): Entry => ({ label: `${label} per 100 km`, display: 'decimal', places: 2 });
const enumOf = (label: string, values: Record<string, string>): Entry => ({ label, display: 'enum', values });

/** Booking statuses as the carpool API spells them (fleet-api-contract.md) and as people say them. */
export const BOOKING_STATUS_LABELS: Readonly<Record<string, string>> = {
  BOOKING_STATUS_REQUESTED: 'Requested',
  BOOKING_STATUS_EXPIRING_APPROVAL: 'Approval expiring',
  BOOKING_STATUS_APPROVED: 'Approved',
  BOOKING_STATUS_DECLINED: 'Declined',
  BOOKING_STATUS_CANCELLED: 'Cancelled',
  BOOKING_STATUS_ACTIVE: 'Active',
  BOOKING_STATUS_ACTIVE_ALMOST_LATE: 'Active, almost late',
  BOOKING_STATUS_ACTIVE_LATE: 'Active, late',
  BOOKING_STATUS_RETURNED: 'Returned',
  BOOKING_STATUS_RETURNED_LATE: 'Returned late',
  BOOKING_STATUS_FORCE_TERMINATED: 'Force terminated',
};

const LEDGER_STATUS = {
  done: 'Complete',
  flagged: 'Complete, flagged',
  incomplete: 'Incomplete',
  failed: 'Failed',
  open: 'Open',
  pending: 'Pending',
  accepted_incomplete: 'Accepted incomplete',
};
/** The coverage of a row's grain (queries/models/coverage.sql). */
const COVERAGE = { complete: 'Complete', partial: 'Partly synced', not_synced: 'Not synced' };

const FUEL_SOURCE = {
  counter: 'Fuel counter',
  level_estimate: 'Level estimate',
  none: 'No fuel sensor',
  electric: 'Electric',
};
const STREAM = {
  vehicles: 'Vehicles',
  trips: 'Trips',
  odometer: 'Odometer',
  fuel_consumed: 'Fuel counter',
  fuel_level: 'Fuel level',
  fuel_fills: 'Fuel fills',
  fuel_level_history: 'Fuel level series',
  geofences: 'Geofences',
  visits: 'Toll visits',
  bookings: 'Bookings',
  carpool: 'Carpool',
  activity: 'Vehicle activity',
  drivers: 'Drivers',
  ev_energy: 'EV energy',
  sites: 'Site visits',
};

const BY_NAME: Readonly<Record<string, Entry>> = {
  // vehicles and identities
  registration: text('Registration'),
  vehicle_id: id('Vehicle ID'),
  department: text('Department'),
  booking_department: text('Booking department'),
  driver_id: id('Driver ID'),
  trip_id: id('Trip ID'),
  booking_id: id('Booking ID'),
  geofence_id: id('Geofence ID'),
  geofence_name: text('Toll gantry'),
  run_id: id('Run ID'),
  last_run_id: id('Last run ID'),
  id: id('ID'),
  name: text('Name'),
  kind: enumOf('Kind', { driver: 'Driver', vehicle: 'Vehicle' }),
  record: text('Record'),
  field: text('Field'),
  value: text('Value as sent'),
  records: count('Records'),
  example_id: id('Example ID'),
  zone: text('Time zone'),
  carpool: flag('Carpool vehicle'),
  fuel_source: enumOf('Fuel data source', FUEL_SOURCE),
  source: enumOf('Source', FUEL_SOURCE),

  // periods and times
  period: { label: 'Period', display: 'month' },
  day: day('Day'),
  local_date: day('Local date'),
  utc_date: day('UTC date'),
  range_from: day('From'),
  range_to: day('To'),
  complete_through_day: day('Complete through (day)'),
  start_time: when('Start'),
  end_time: when('End'),
  enter_time: when('Entered'),
  exit_time: when('Left'),
  window_start: when('Window start'),
  window_end: when('Window end'),
  first_passage: when('First passage'),
  last_passage: when('Last passage'),
  picked_up_at: when('Picked up'),
  returned_at: when('Returned'),
  created_at: when('Booked at'),
  last_event_at: when('Last event'),
  fetched_at: when('Fetched'),
  started_at: when('Started'),
  ended_at: when('Ended'),
  last_run_ended_at: when('Last run ended'),
  complete_through: when('Complete through'),
  duration_s: { label: 'Duration', display: 'duration' },
  span_h: hours('Window length'),

  // distance
  distance_km: km('Distance'),
  trip_distance_km: km('Trip distance'),
  counted_km: km('Counted distance'),
  left_out_km: km('Distance left out'),
  reported_distance_km: km('Distance reported by the API'),
  start_odometer_km: km('Odometer at start'),
  end_odometer_km: km('Odometer at end'),
  start_location: text('From'),
  end_location: text('To'),
  trip_type: enumOf('Trip type', { None: 'Unclassified', Business: 'Business', Private: 'Private' }),
  is_private: flag('Private'),
  trip_title: text('Trip title'),
  trip_extra_notes: text('Trip notes'),
  harsh_braking_events: count('Harsh braking'),
  harsh_acceleration_events: count('Harsh acceleration'),
  harsh_cornering_events: count('Harsh cornering'),
  road_speeding_events: count('Speeding (road limit)'),
  road_speeding_duration_seconds: { label: 'Speeding time (road limit)', display: 'duration' },
  thresholds_speeding_events: count('Speeding (set threshold)'),
  thresholds_speeding_duration_seconds: { label: 'Speeding time (set threshold)', display: 'duration' },
  max_speed: { label: 'Max speed', unit: 'km/h', display: 'decimal', places: 0 },
  start_geofence_name: text('Start geofence'),
  end_geofence_name: text('End geofence'),

  // fuel
  fuel_used_l: litres('Fuel used'),
  reported_used_l: litres('Fuel used reported by the API'),
  counter_start_l: litres('Counter at start'),
  counter_end_l: litres('Counter at end'),

  // counts
  trips: count('Trips'),
  toll_passages: count('Toll passages'),
  passages: count('Passages'),
  vehicles: count('Vehicles'),
  bookings: count('Bookings'),
  late_returns: count('Late returns'),
  checked_out: count('Checked out'),
  approved: count('Approved'),
  declined: count('Declined'),
  no_shows: count('No-shows'),
  carpool_vehicles: count('Carpool vehicles'),
  excluded_periods: count('Windows left out'),
  excluded_odometer_windows: count('Odometer windows left out'),
  excluded_fuel_windows: count('Fuel windows left out'),
  requests: count('Requests'),
  retries: count('Retries'),
  announced: count('Records announced by the API'),
  kept: count('Records kept'),
  duplicates: count('Records listed twice'),

  // shares and hours
  late_return_rate: percent('Late-return rate'),
  share: percent('Share'),
  utilisation: percent('Utilisation'),
  covered_share: percent('Covered'),
  // coverage of a row's grain (queries/models/coverage.sql)
  coverage: enumOf('Coverage', COVERAGE),
  synced_days: count('Days synced'),
  open_days: count('Days open for late data'),
  range_days: count('Days in range'),
  month_span: text('Months of distance and fuel'),
  span_basis: enumOf('Distance and fuel cover', { range: 'The range', whole_months: 'Whole months' }),
  span_from: day('Distance and fuel from'),
  span_to: day('Distance and fuel to'),
  span_synced_days: count('Days synced (distance and fuel)'),
  span_open_days: count('Days open for late data (distance and fuel)'),
  span_days: count('Days (distance and fuel)'),
  months_synced_days: count('Days synced (whole months)'),
  months_open_days: count('Days open for late data (whole months)'),
  months_days: count('Days (whole months)'),
  median_approval_turnaround_h: hours('Median approval time'),
  booked_h: hours('Booked'),
  available_h: hours('Available'),

  // vehicle activity and drivers (utilisation, utilisation_days, drivers)
  driver_name: text('Driver'),
  distance_share: percent('Share of trip distance'),
  driving_h: hours('Driving'),
  idle_h: hours('Idling'),
  idle_share: percent('Idle share of engine-on time'),
  after_hours_h: hours('Engine on after hours'),
  days_used: count('Working days used'),
  days_available: count('Working days available'),
  days_synced: count('Days synced'),
  days_in_month: count('Days in month'),
  used: flag('Used'),
  working_day: flag('Working day'),
  synced: flag('Synced'),
  first_ignition_on: when('First ignition on'),
  last_ignition_off: when('Last ignition off'),

  // flags and codes
  complete: flag('Month complete'),
  counted: flag('Counted'),
  is_late: flag('Late'),
  is_approved: flag('Approved'),
  booking_status: enumOf('Booking status', BOOKING_STATUS_LABELS),
  setup_status: enumOf('Setup status', { SETUP_INCOMPLETE: 'Setup incomplete', READY: 'Ready' }),
  reason: enumOf('Reason', {}),
  ledger_status: enumOf('Sync status', LEDGER_STATUS),
  ledger_reason: text('Sync note'),
  status: enumOf('Status', {
    ...LEDGER_STATUS,
    synced: 'Synced',
    partial: 'Partly synced',
    not_synced: 'Not synced',
    counted: 'Counted',
    'left out': 'Left out',
    'no reading': 'No reading',
  }),
  stream: enumOf('Stream', STREAM),
  streams: text('Streams'),
  scope: text('Scope'),
  trigger: enumOf('Started by', {
    cli: 'Command line',
    schedule: 'Schedule',
    api: 'Dashboard',
    demo: 'Demo',
  }),
  outcome: enumOf('Outcome', {
    ok: 'Succeeded',
    partial: 'Partial',
    failed: 'Failed',
    running: 'Running',
    interrupted: 'Interrupted',
  }),
  last_run_outcome: enumOf('Last run outcome', {
    ok: 'Succeeded',
    partial: 'Partial',
    failed: 'Failed',
    running: 'Running',
    interrupted: 'Interrupted',
  }),
  http_429: text('HTTP 429 by bucket'),
  windows_by_stream: text('Windows by stream'),
  errors: text('Errors'),
  skipped: text('Skipped: not permitted or not available'),
  notes: text('Notes'),

  // refuels and costs (refuels, fuel_reconciliation, costs, toll_charges); money is in the
  // prices file's currency (the `currency` column), never converted
  fill_time: when('Filled at'),
  litres: litres('Litres filled'),
  location: text('Place'),
  odometer_km: km('Odometer at the fill'),
  accurate: flag('Accurate'),
  filled_l: litres('Fuel filled'),
  fills: count('Fills'),
  used_l: litres('Fuel used'),
  difference_l: litres('Filled − used'),
  fuel_type: text('Fuel type'),
  vehicle_class: text('Vehicle class'),
  fuel_price_per_l: { label: 'Fuel price per litre (per kWh if electric)', display: 'decimal', places: 3 },
  energy_kwh: { label: 'EV energy used', unit: 'kWh', display: 'decimal', places: 1 },
  energy_days: count('Days of EV energy synced'),
  fuel_cost: { label: 'Fuel cost', display: 'decimal', places: 2 },
  toll_no_tariff: count('Passages without a tariff'),
  toll_charges_known: { label: 'Toll charges with a tariff', display: 'decimal', places: 2 },
  toll_charges: { label: 'Toll charges', display: 'decimal', places: 2 },
  cost_per_km: { label: 'Cost per km', display: 'decimal', places: 3 },
  co2_kg: { label: 'CO₂', unit: 'kg', display: 'decimal', places: 1 },
  currency: text('Currency'),

  // suspected fuel drops (fuel_drops)
  level_before_l: litres('Level before'),
  level_after_l: litres('Level after'),
  duration_min: { label: 'Duration', unit: 'min', display: 'decimal', places: 0 },
  parked: flag('Parked'),
  unknown_vehicle_months: count('Vehicle-months with an unknown cost'),
  tariff_valid_from: day('Tariff valid from'),
  charge: { label: 'Charge', display: 'decimal', places: 2 },
  // 'Priced', not 'Tariff' under the header 'Tariff' (a column reading Tariff / No tariff)
  tariff_status: enumOf('Tariff', { tariff: 'Priced', no_tariff: 'No tariff', no_prices: 'No prices file' }),

  // the tax logbook (logbook, logbook_years; queries/models/logbook.sql)
  tax_year: text('Tax year'),
  year_start: day('Year starts'),
  year_end: day('Year ends'),
  start_place: text('From'),
  end_place: text('To'),
  opening_odometer_km: km('Opening odometer'),
  closing_odometer_km: km('Closing odometer'),
  opening_odometer_day: day('Opening odometer read on'),
  closing_odometer_day: day('Closing odometer read on'),
  opening_odometer_trip: id('Opening odometer: end of trip'),
  closing_odometer_trip: id('Closing odometer: end of trip'),
  km: km('Distance'),
  trip_class: enumOf('Class', { business: 'Business', private: 'Private', unclassified: 'Unclassified' }),
  purpose: text('Purpose'),
  odometer_status: enumOf('Odometer', {
    ok: 'Readings used',
    missing: 'Reading not sent',
    went_down: 'Went down (reset)',
    left_out: 'Left out (odometer rule)',
  }),
  odometer_reason: enumOf('Odometer reason', {}),
  not_sent: text('Not sent by the API'),
  class_note: text('Why unclassified'),
  business_km: km('Business'),
  private_km: km('Private'),
  unclassified_km: km('Unclassified'),
  business_share: percent('Business share'),
  unclassified_trips: count('Unclassified trips'),
  trips_not_counted: count('Trips without counted km'),
  // driver scorecards and fuel efficiency (driver_scores, fuel_efficiency, fuel_efficiency_drivers)
  harsh_braking_per_100km: per100('Harsh braking'),
  harsh_acceleration_per_100km: per100('Harsh acceleration'),
  harsh_cornering_per_100km: per100('Harsh cornering'),
  speeding_events: count('Speeding'),
  speeding_per_100km: per100('Speeding'),
  speeding_min: { label: 'Speeding time', unit: 'min', display: 'decimal', places: 1 },
  speeding_min_per_100km: { label: 'Speeding time per 100 km', unit: 'min', display: 'decimal', places: 2 },
  score: { label: 'Score (0–100)', display: 'decimal', places: 1 },
  rank: count('Rank'),
  ranked_drivers: count('Drivers ranked'),
  not_ranked: enumOf('Not ranked because', {
    not_synced: 'Trips not synced',
    no_driver: 'No driver recorded',
    below_min_km: 'Under the minimum distance',
    unknown_counts: 'Event counts unknown',
  }),
  score_change: { label: 'Change from previous month', display: 'decimal', places: 1 },
  trips_without_counts: count('Trips without event counts'),
  counted_l: litres('Fuel counted for both'),
  l_per_100km: { label: 'Fuel efficiency', unit: 'L/100 km', display: 'decimal', places: 2 },
  baseline_l_per_100km: {
    label: 'Baseline (3 months before)',
    unit: 'L/100 km',
    display: 'decimal',
    places: 2,
  },
  baseline_months: count('Months in the baseline'),
  above_baseline: percent('Above baseline'),
  outlier: flag('Outlier'),
  class_l_per_100km: { label: 'Class efficiency', unit: 'L/100 km', display: 'decimal', places: 2 },
  class_vehicles: count('Vehicles of the class'),
  vs_class: percent('Difference from class'),
  left_out_periods: count('Windows not counted for both'),
  trip_km: km('Trip distance'),
  carried_l: litres('Fuel carried by the trips'),
  // time on site (site_visits, site_activity)
  site: text('Site'),
  dwell_min: { label: 'Time on site', unit: 'min', display: 'decimal', places: 1 },
  outside_hours: flag('Entered outside working hours'),
  visits: count('Visits'),
  total_dwell_h: hours('Time on site, total'),
  median_dwell_min: { label: 'Median time on site', unit: 'min', display: 'decimal', places: 1 },
  longest_stay_h: hours('Longest stay'),
  longest_stay_registration: text('Longest stay by'),
  open_visits: count('Visits still open'),
  outside_hours_visits: count('Visits entered outside working hours'),
  // service_due (issue 28 item 1)
  interval_scope: enumOf('Interval for', { vehicle: 'This vehicle', class: 'Its class', fleet: 'The fleet' }),
  every_km: km('Every'),
  every_months: { label: 'Every (months)', display: 'integer' },
  last_service_day: day('Last service'),
  last_service_odometer_km: km('Odometer at last service'),
  km_since_service: km('Since last service'),
  odometer_as_of: when('Odometer known up to'),
  next_service_km: km('Next service at'),
  km_remaining: km('Remaining'),
  next_service_day: day('Next service by date'),
  days_remaining: { label: 'Days remaining', display: 'integer' },
  km_per_day: { label: 'Recent distance', unit: 'km/day', display: 'decimal', places: 1 },
  forecast_basis_days: { label: 'Forecast rests on', unit: 'days', display: 'decimal', places: 1 },
  forecast_day: day('Forecast to reach the km'),
  due_day: day('Due (earliest)'),
};

/** Per-report overrides, `<report>.<column>`. */
const BY_REPORT: Readonly<Record<string, Entry>> = {
  // a vehicle / department filter that matches no vehicle (issue 25)
  'kpis.coverage': enumOf('Coverage', { ...COVERAGE, no_vehicle: 'No vehicle matches' }),
  'kpis.months_coverage': enumOf('Coverage (whole months)', COVERAGE),
  'kpis.span_coverage': enumOf('Coverage (distance and fuel)', {
    ...COVERAGE,
    no_vehicle: 'No vehicle matches',
  }),
  'trend.period': { label: 'Period', display: 'text' },
  'site_visits.status': enumOf('Visit', { open: 'Open (still on site)', closed: 'Left' }),
  'fuel_drops.litres': litres('Litres lost'),
  'logbook_years.odometer_km': km('Distance by odometer'),
  'logbook.counted_km': km('Counted in totals'),
  'fuel_efficiency.counted_km': km('Distance counted for both'),
  'service_due.status': enumOf('Service', {
    overdue: 'Overdue',
    due: 'Due soon',
    ok: 'OK',
    unknown: 'Unknown',
  }),
  'service_due.reason': text('Why'),
  'service_due.odometer_km': km('Odometer now (counted)'),
  'coverage.status': enumOf('Coverage', {
    synced: 'Synced',
    partial: 'Partly synced',
    not_synced: 'Not synced',
    missing: 'Not synced',
    flagged: 'Synced, flagged',
    incomplete: 'Incomplete or failed',
  }),
};

const fromKind: Record<ColumnDef['kind'], Display> = {
  text: 'text',
  number: 'decimal',
  integer: 'integer',
  boolean: 'boolean',
  time: 'datetime',
  day: 'date',
  month: 'month',
};

/** The entry for a column, or undefined when nobody described it (the test catches that). */
export function describedAs(report: string, column: string): Entry | undefined {
  return BY_REPORT[`${report}.${column}`] ?? BY_NAME[column];
}

/** How `col` of `report` is shown; a column nobody described falls back to its name and kind. */
export function presentation(report: string, col: ColumnDef): Presentation {
  const e = describedAs(report, col.name);
  if (!e) return { label: col.name, display: fromKind[col.kind] };
  return { ...e, display: e.display ?? fromKind[col.kind] };
}

/**
 * The human header of a column: its label with the unit once, "Distance (km)". A CSV cell of a
 * percent column holds the share (0.185), not 18.5, so its CSV header says "share" instead of "%"
 * (`forCsv`); XLSX and the dashboard format the cell as a percent and keep "%".
 */
export function humanHeader(p: Presentation, forCsv = false): string {
  if (forCsv && p.display === 'percent') return `${p.label} (share, 0–1)`;
  return p.unit ? `${p.label} (${p.unit})` : p.label;
}
