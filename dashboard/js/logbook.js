// The tax logbook (issue 27): business, private and unclassified km per vehicle and tax year, and
// the trips behind them. A figure of a vehicle-year links to that vehicle's trips of the whole tax
// year (vehicle=…, from=year start, to=year end: a plain link, shareable); its tax year links to
// the auditor's XLSX of that vehicle-year. A year never synced reads "not synced", never 0.
import { drillCrumbs, who } from './drill.js';
import { hrefWith, startPage } from './page.js';
import { dayText } from './table.js';

/** The columns of a vehicle-year whose figure the trips make up. */
const FIGURES = [
  'trips',
  'business_km',
  'private_km',
  'unclassified_km',
  'unclassified_trips',
  'trips_not_counted',
];

/**
 * The query of one vehicle's tax year (the filter's preset and department give way to it).
 * @param {import('./types.d.ts').Cell} vehicle @param {import('./types.d.ts').Cell} from
 * @param {import('./types.d.ts').Cell} to
 * @returns {import('./types.d.ts').Query}
 */
const yearQuery = (vehicle, from, to) => ({
  vehicle: String(vehicle),
  from: String(from),
  to: String(to),
  preset: null,
  department: null,
});

startPage({
  title: 'Tax logbook',
  header: drillCrumbs('logbook.html'),
  sections: [
    {
      id: 'years',
      title: 'Business and private km per vehicle and tax year',
      heading: (f) => `Business and private km of ${who(f)} per tax year`,
      report: 'logbook_years',
      note:
        'Every tax year the period touches, whole (FLEETSYNC_TAX_YEAR_START). Km are closing − opening odometer of the ' +
        'trips whose readings are trusted; trips the API did not classify are unclassified, never business. Business ' +
        'share = business km ÷ distance by odometer. Click a figure for the trips behind it, a tax year for the ' +
        "auditor's XLSX of that vehicle's year.",
      chart: {
        type: 'bar',
        x: 'registration',
        y: ['business_km', 'private_km', 'unclassified_km'],
        labels: ['business (km)', 'private (km)', 'unclassified (km)'],
        yTitle: 'km',
        horizontal: true,
      },
      tableOpts: {
        hide: ['zone', 'department', 'vehicle_id', 'opening_odometer_day', 'closing_odometer_day'],
        link: (col, r) => {
          if (col === 'registration') return hrefWith('logbook.html', { vehicle: r.vehicle_id });
          if (col === 'tax_year')
            return `/api/reports/logbook.xlsx?${new URLSearchParams({
              vehicle: String(r.vehicle_id),
              from: String(r.year_start),
              to: String(r.year_end),
            })}`;
          if (FIGURES.includes(col) && r[col] !== null)
            return `${hrefWith('logbook.html', yearQuery(r.vehicle_id, r.year_start, r.year_end))}#trips`;
          return null;
        },
      },
    },
    {
      id: 'trips',
      title: 'Trips',
      heading: (f) => `Trips of ${who(f)} from ${dayText(f.from)} to ${dayText(f.to)}`,
      report: 'logbook',
      note:
        'One row per trip, private trips with what the API sends of them: "Not sent by the API" names what a trip ' +
        'lacks, nothing is guessed. A trip whose odometer reading is missing, went down, or falls on a day with a reset ' +
        'or tracker change keeps its row but not its km in the totals. The XLSX of one vehicle and one tax year states ' +
        'the vehicle, the year, the odometer and the business share above its trips.',
      tableOpts: {
        hide: ['zone', 'department', 'vehicle_id', 'trip_id', 'trip_type', 'is_private', 'local_date'],
      },
    },
  ],
});
