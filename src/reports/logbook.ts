/**
 * The tax logbook's statement above its trips in the XLSX (issue 27): what an auditor reads first
 * — the vehicle, the tax year, the opening and closing odometer, the km by class, the business
 * share, the trips not counted and the year's coverage — one block per vehicle × tax year of the
 * selection, from the logbook_years report (the same rules, queries/models/logbook.sql). Unknown
 * reads "unknown", never 0.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportParams } from './params.ts';
import { requireReport, runReport, type JsonRow, type ReportScope } from './run.ts';

const num = (v: unknown, places = 1) =>
  typeof v === 'number'
    ? v.toLocaleString('en-GB', { minimumFractionDigits: places, maximumFractionDigits: places })
    : null;
const km = (v: unknown) => (num(v) === null ? 'unknown' : `${num(v)} km`);
const trips = (n: unknown) => (typeof n === 'number' ? `${n} trip${n === 1 ? '' : 's'}` : 'unknown trips');
const COVERAGE: Readonly<Record<string, string>> = {
  complete: 'every day of the year synced',
  partial: 'not every day of the year synced',
  not_synced: 'no day of the year synced',
};

function reading(v: unknown, day: unknown, what: string, trip: unknown): string {
  if (typeof v !== 'number') return `${what}: unknown (no odometer reading synced in the year)`;
  // a trip across the year's start or end counts whole in the year it starts in (logbook.sql)
  const at =
    typeof trip === 'string'
      ? ` (the closing reading of trip ${trip}, counted in the year it starts in)`
      : '';
  return `${what}: ${num(v)} km, read on ${String(day)}${at}`;
}

/** The lines of one vehicle × tax year. */
export function yearLines(r: JsonRow): string[] {
  const share = num(typeof r.business_share === 'number' ? r.business_share * 100 : null);
  const covered = num(typeof r.covered_share === 'number' ? r.covered_share * 100 : null);
  return [
    `Vehicle: ${String(r.registration)} (vehicle id ${String(r.vehicle_id)}${r.department ? `, ${String(r.department)}` : ''})`,
    `Tax year: ${String(r.tax_year)}, ${String(r.year_start)} to ${String(r.year_end)}; coverage: ${COVERAGE[String(r.coverage)] ?? String(r.coverage)}${covered === null ? '' : ` (${covered} % of its days so far)`}`,
    reading(r.opening_odometer_km, r.opening_odometer_day, 'Opening odometer', r.opening_odometer_trip),
    reading(r.closing_odometer_km, r.closing_odometer_day, 'Closing odometer', r.closing_odometer_trip),
    `Business: ${km(r.business_km)}; private: ${km(r.private_km)}; unclassified: ${km(r.unclassified_km)} (${trips(r.unclassified_trips)}, not counted as business); distance by odometer: ${km(r.odometer_km)}`,
    `Business share: ${share === null ? 'unknown' : `${share} %`} (business km over the distance by odometer)`,
    `Trips whose km are not counted (odometer reading missing, went down, or a reset or tracker change that day): ${r.trips_not_counted ?? 'unknown'} of ${r.trips ?? 'unknown'}`,
    ...(typeof r.excluded_periods === 'number' && r.excluded_periods > 0
      ? [
          `Odometer reset or tracker changed in the year (${r.excluded_periods} odometer window${r.excluded_periods === 1 ? '' : 's'} left out): closing − opening odometer is not the distance driven`,
        ]
      : []),
  ];
}

/** The statement above the logbook's trips for the selection of `params`. */
export async function logbookPreamble(
  con: DuckDBConnection,
  scope: ReportScope,
  params: ReportParams,
): Promise<string[]> {
  const years = (await runReport(con, requireReport('logbook_years'), scope, params)).rows;
  return [
    `Tax logbook: every trip from ${params.fromDay} to ${params.toDay} (local time in ${scope.zone}), with the totals of each vehicle's tax year`,
    ...years.flatMap((r) => ['', ...yearLines(r)]),
  ];
}
