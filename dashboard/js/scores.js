// Driver scorecards: per driver and month the harsh events and speeding per 100 km, the score
// (100 − the weighted events per 100 km, floored at 0), the rank among the drivers with enough
// distance and the change from the month before; a driver's name drills down to the trips of
// that month behind the figures (driver=…, month=… in the URL: a link to share, the back button
// works).
import { driverTripsHref, startPage } from './page.js';
import { dayText } from './table.js';
import { monthsText } from './period.js';
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */

/**
 * The chart's rows: the latest month of the range with a ranked driver, best score first.
 * @template R
 * @param {R[]} rows
 * @returns {R[]}
 */
function latestRanked(rows) {
  const ranked = /** @type {AnyRow[]} */ (/** @type {unknown} */ (rows)).filter((r) => r.rank !== null);
  const last = ranked.reduce((m, r) => (String(r.period) > m ? String(r.period) : m), '');
  return /** @type {R[]} */ (
    /** @type {unknown} */ (
      ranked.filter((r) => r.period === last).sort((a, b) => Number(a.rank) - Number(b.rank))
    )
  );
}

/**
 * The rule as this server computes it: the weights and minimum distance its answer states
 * (FLEETSYNC_SCORE_WEIGHTS, FLEETSYNC_SCORE_MIN_KM).
 * @param {import('./types.d.ts').ReportAnswer<unknown>} result
 */
function scoreNote(result) {
  const s = result.settings;
  const w = s?.score_weights;
  const rule = w
    ? `Score = 100 − (${w.braking} × harsh braking + ${w.acceleration} × harsh acceleration + ${w.cornering} × harsh cornering + ${w.speeding} × speeding events + ${w.speeding_min} × speeding minutes) per 100 km, floored at 0 (weights: FLEETSYNC_SCORE_WEIGHTS).`
    : 'Score = 100 − the weighted harsh events and speeding per 100 km, floored at 0 (weights: FLEETSYNC_SCORE_WEIGHTS).';
  const min = s?.score_min_km !== undefined ? `at least ${s.score_min_km} km` : 'enough distance';
  return `${rule} Ranked within the month among drivers with ${min} (FLEETSYNC_SCORE_MIN_KM) and known counts; trips without a driver are the “no driver recorded” row, never ranked. The chart shows the latest month’s ranked drivers. Blank = not synced or unknown. Click a driver (or the trip count) to see the month’s trips behind the figures.`;
}

startPage({
  title: 'Driver scores',
  sections: [
    {
      id: 'scores',
      title: 'Driver scores per month',
      report: 'driver_scores',
      note: scoreNote,
      chart: {
        type: 'bar',
        x: 'driver_name',
        y: ['score'],
        labels: ['score (0–100)'],
        yTitle: 'score',
        horizontal: true,
        rows: latestRanked,
        caption: (rows) => {
          const r = /** @type {AnyRow[]} */ (/** @type {unknown} */ (rows))[0];
          if (!r) return 'No ranked driver in the range.';
          const share =
            typeof r.covered_share === 'number'
              ? ` (${(r.covered_share * 100).toFixed(1)} % of days synced)`
              : '';
          const cov =
            r.coverage === 'complete'
              ? 'complete'
              : r.coverage === 'partial'
                ? `partly synced${share}`
                : String(r.coverage ?? '');
          return `Ranked drivers of ${monthsText(String(r.period), String(r.period))}: ${cov}.`;
        },
      },
      tableOpts: {
        hide: ['zone', 'driver_id'],
        // the name (when the API names the driver) and the trip count open the trips behind the row
        link: (col, r) =>
          (col === 'driver_name' && r.driver_name !== null) || (col === 'trips' && Number(r.trips) > 0)
            ? driverTripsHref(r)
            : null,
        cellClass: (col, v) => (col === 'score_change' && typeof v === 'number' && v < 0 ? 'bad' : ''),
      },
    },
    {
      id: 'trips',
      title: 'Trips behind the score',
      heading: (_f, d) =>
        `Trips ${d.driver === '-' ? 'without a driver' : 'of the driver'} starting in ${dayText(d.month)}`,
      report: 'trips',
      when: (_f, d) => Boolean(d.driver && d.month),
      query: (f, d) => ({ vehicle: f.vehicle, department: f.department, month: d.month, driver: d.driver }),
      note: 'The trips the month’s figures add up from: distance, harsh events and speeding as the API sent them per trip.',
      tableOpts: {
        hide: [
          'zone',
          'department',
          'vehicle_id',
          'driver_id',
          'local_date',
          'utc_date',
          'start_odometer_km',
          'end_odometer_km',
          'trip_title',
          'trip_extra_notes',
          'thresholds_speeding_events',
          'thresholds_speeding_duration_seconds',
          'start_geofence_name',
          'end_geofence_name',
        ],
      },
    },
  ],
});
