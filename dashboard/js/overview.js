import { hrefWith, NO_VEHICLE, NOT_SYNCED, startPage } from './page.js';
import { dateTimeText, dayText, fmtQty } from './table.js';
import { costTiles } from './costs.js';
import { coverageNote, spanNote, wholeMonthsNote } from './period.js';
import { tile as makeTile } from './tiles.js';

const grainSelect = document.createElement('select');
grainSelect.id = 'grain';
grainSelect.setAttribute('aria-label', 'Trend grain');
for (const g of ['day', 'week', 'month']) grainSelect.append(new Option(`by ${g}`, g));
grainSelect.value = 'week';

/**
 * The key figures as tiles; a figure that is unknown shows '—', never 0.
 * @param {import('./types.d.ts').ReportAnswerOf<'kpis'>} result
 * @param {import('./types.d.ts').SectionParts} parts
 */
function tiles(result, { tableDiv }) {
  /** @type {Partial<import('./types.d.ts').ReportRow<'kpis'>>} */
  const k = result.rows[0] ?? {};
  // Coverage (issue 12): not one day of the range synced → every figure reads "not synced"; a
  // vehicle / department filter that matches no vehicle reads "no vehicle matches" (issue 25).
  const none = k.coverage === 'no_vehicle';
  const unsynced = k.coverage === 'not_synced' || none;
  const blank = none ? NO_VEHICLE : NOT_SYNCED;
  /** @param {number | null | undefined} n */
  const num = (n) => (n === null || n === undefined ? (unsynced ? blank : '—') : fmtQty(n));
  /** @param {string} id @param {string} label @param {string} value @param {string} sub */
  const tile = (id, label, value, sub) =>
    makeTile(`kpi-${id}`, label, value === '' && unsynced ? blank : value, sub);
  const rate =
    k.late_return_rate === null || k.late_return_rate === undefined
      ? ''
      : fmtQty(k.late_return_rate * 100, '%', 1);
  /** @param {number | null | undefined} n */
  const excluded = (n) =>
    n === null || n === undefined ? '' : `${fmtQty(n)} window${n === 1 ? '' : 's'} excluded`;
  // Distance and fuel come from windows taken whole (issue 25: one period per screen): the
  // range's when its windows lie inside it, else the whole months, said on the tile with their
  // own coverage ("Oct 2026, whole months; partial: 12 of 31 days synced").
  const span = unsynced ? '' : spanNote(k);
  tableDiv.replaceChildren(
    tile(
      'distance',
      'Fleet distance (odometer)',
      fmtQty(k.distance_km, 'km', 1),
      [span, excluded(k.excluded_odometer_windows)].filter(Boolean).join('; '),
    ),
    tile(
      'fuel',
      'Fuel used',
      fmtQty(k.fuel_used_l, 'L', 1),
      [span, excluded(k.excluded_fuel_windows)].filter(Boolean).join('; '),
    ),
    tile(
      'tolls',
      'Toll passages',
      fmtQty(k.toll_passages),
      `${unsynced ? (none ? NO_VEHICLE : 'trips not synced') : `${num(k.trips)} trips`}, ${fmtQty(k.vehicles ?? 0)} vehicles`,
    ),
    // the rate is over the checked-out bookings (picked up), not all bookings
    tile(
      'late',
      'Late returns',
      rate ? `${rate} late` : '',
      unsynced
        ? none
          ? NO_VEHICLE
          : 'bookings not synced'
        : `${num(k.late_returns)} late of ${num(k.checked_out)} checked-out bookings`,
    ),
    // The last complete local day, inclusive, said once, in words.
    tile(
      'fresh',
      k.complete_through_day
        ? 'Complete through (local day)'
        : (result.complete_through_text ?? 'complete through'),
      k.complete_through_day ? dayText(k.complete_through_day) : '',
      k.last_run_id
        ? `last run ${k.last_run_outcome}, ended ${k.last_run_ended_at ? dateTimeText(k.last_run_ended_at) : '—'}`
        : 'never synced: run fleetsync sync',
    ),
  );
  if (none) {
    const p = document.createElement('p');
    p.id = 'kpi-coverage';
    p.className = 'coverage-note';
    p.textContent = `${NO_VEHICLE}: no vehicle of the account is the chosen vehicle in the chosen department`;
    tableDiv.prepend(p);
    return;
  }
  // A range not wholly synced says so above the tiles, with a link to the data-quality page.
  if (k.coverage && k.coverage !== 'complete' && typeof k.range_days === 'number' && k.range_days > 0) {
    const a = document.createElement('a');
    a.id = 'kpi-coverage';
    a.className = 'coverage-note';
    a.href = hrefWith('quality.html', {});
    a.textContent = coverageNote(k.coverage, k.synced_days, k.open_days, k.range_days);
    a.title = 'Which vehicle-days are synced: the data-quality page';
    tableDiv.prepend(a);
  }
}

/**
 * A section title that says so when its figures are whole months the range only cuts (issue 25).
 * @param {string} title
 * @param {import('./types.d.ts').Filter} f
 * @param {string} [what] which of its figures are monthly ('' = all)
 */
function withMonths(title, f, what = '') {
  const note = f.from && f.to ? wholeMonthsNote(f.from, f.to) : '';
  return note ? `${title} (${what}${note})` : title;
}

startPage({
  title: 'Overview',
  sections: [
    { id: 'kpis', title: 'Key figures', report: 'kpis', render: tiles },
    { id: 'costs', title: 'Costs and CO₂', report: 'costs', render: costTiles },
    // per local month: over a range that is not whole months, the heading says which months
    {
      id: 'cost-departments',
      title: 'Costs and CO₂ per department',
      report: 'cost_departments',
      heading: (f) => withMonths('Costs and CO₂ per department', f),
    },
    {
      id: 'trend',
      title: 'Trend',
      report: 'trend',
      note: 'Trip distance per period is indicative (per-trip); fleet totals come from odometer windows.',
      extra: () => ({ grain: grainSelect.value }),
      chart: {
        type: 'bar',
        x: 'period',
        y: ['trip_distance_km', 'trips', 'toll_passages'],
        labels: ['trip distance (km)', 'trips', 'toll passages'],
        axes: ['y', 'y2', 'y2'],
        yTitle: 'km',
        y2Title: 'count',
      },
    },
    {
      id: 'top',
      title: 'Top vehicles by distance',
      report: 'top_vehicles',
      // distance and fuel per vehicle are its whole months (toll passages and trips the range's)
      heading: (f) => withMonths('Top vehicles by distance', f, 'distance and fuel: '),
      chart: { type: 'bar', x: 'registration', y: ['distance_km'], labels: ['distance (km)'], yTitle: 'km' },
      note: 'Click a vehicle to open its months, windows and trips.',
      tableOpts: {
        link: (col, r) =>
          col === 'registration' ? hrefWith('mileage.html', { vehicle: r.vehicle_id, month: null }) : null,
      },
    },
  ],
}).then(() => {
  document.querySelector('#sec-trend h2')?.append(' ', grainSelect);
  grainSelect.addEventListener('change', () =>
    document.querySelector('#f-vehicle')?.dispatchEvent(new Event('change')),
  );
});
