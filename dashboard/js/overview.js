import { startPage } from './page.js';
import { fmt } from './table.js';

const grainSelect = document.createElement('select');
grainSelect.id = 'grain';
for (const g of ['day', 'week', 'month']) grainSelect.append(new Option(`by ${g}`, g));

function tiles(result, { tableDiv }) {
  const k = result.rows[0] ?? {};
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
      : `${fmt(k.late_return_rate * 100)} %`;
  tableDiv.replaceChildren(
    tile(
      'distance',
      'Fleet distance (km, odometer)',
      fmt(k.distance_km),
      `${fmt(k.excluded_odometer_windows)} windows excluded`,
    ),
    tile('fuel', 'Fuel used (l)', fmt(k.fuel_used_l), `${fmt(k.excluded_fuel_windows)} windows excluded`),
    tile('tolls', 'Toll passages', fmt(k.toll_passages)),
    tile('late', 'Late-return rate', rate, `${fmt(k.late_returns)} late of ${fmt(k.bookings)} bookings`),
    tile(
      'fresh',
      'Complete through',
      (k.complete_through ?? '').replace('T', ' '),
      k.last_run_id ? `last run ${k.last_run_outcome} ${k.last_run_ended_at ?? ''}` : 'never synced',
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
        axes: ['y', 'y2', 'y2'],
      },
    },
    {
      id: 'top',
      title: 'Top vehicles by distance',
      report: 'top_vehicles',
      chart: { type: 'bar', x: 'registration', y: ['distance_km'] },
    },
  ],
}).then(() => {
  const trend = document.querySelector('#sec-trend h2');
  trend.append(' ', grainSelect);
  grainSelect.addEventListener('change', () =>
    document.querySelector('#f-vehicle').dispatchEvent(new Event('change')),
  );
});
