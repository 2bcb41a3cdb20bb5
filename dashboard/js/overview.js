import { hrefWith, startPage } from './page.js';
import { fmtQty } from './table.js';

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
  /** @param {string} id @param {string} label @param {string} value @param {string} sub */
  const tile = (id, label, value, sub) => {
    const d = document.createElement('div');
    d.className = 'tile';
    d.id = `kpi-${id}`;
    const v = document.createElement('div');
    v.className = 'value';
    v.textContent = value === '' ? '—' : value;
    const l = document.createElement('div');
    l.className = 'label';
    l.textContent = label;
    d.append(v, l);
    if (sub) {
      const s = document.createElement('div');
      s.className = 'sub';
      s.textContent = sub;
      d.append(s);
    }
    return d;
  };
  const rate =
    k.late_return_rate === null || k.late_return_rate === undefined
      ? ''
      : fmtQty(k.late_return_rate * 100, '%', 1);
  /** @param {number | null | undefined} n */
  const excluded = (n) => `${fmtQty(n ?? 0)} window${n === 1 ? '' : 's'} excluded`;
  tableDiv.replaceChildren(
    tile(
      'distance',
      'Fleet distance (odometer)',
      fmtQty(k.distance_km, 'km', 1),
      excluded(k.excluded_odometer_windows),
    ),
    tile('fuel', 'Fuel used', fmtQty(k.fuel_used_l, 'L', 1), excluded(k.excluded_fuel_windows)),
    tile(
      'tolls',
      'Toll passages',
      fmtQty(k.toll_passages),
      `${fmtQty(k.trips ?? 0)} trips, ${fmtQty(k.vehicles ?? 0)} vehicles`,
    ),
    // the rate is over the checked-out bookings (picked up), not all bookings
    tile(
      'late',
      'Late returns',
      rate ? `${rate} late` : '',
      `${fmtQty(k.late_returns ?? 0)} late of ${fmtQty(k.checked_out ?? 0)} checked-out bookings`,
    ),
    // The last complete local day, inclusive: in words and ISO (the tile's value).
    tile(
      'fresh',
      result.complete_through_text ?? 'complete through',
      k.complete_through_day ?? '',
      k.last_run_id
        ? `last run ${k.last_run_outcome}, ended ${(k.last_run_ended_at ?? '').replace('T', ' ')}`
        : 'never synced: run fleetsync sync',
    ),
  );
}

startPage({
  title: 'Overview',
  sections: [
    { id: 'kpis', title: 'Key figures', report: 'kpis', render: tiles },
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
