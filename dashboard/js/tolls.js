import { startPage } from './page.js';

startPage({
  title: 'Tolls',
  sections: [
    {
      id: 'gantries',
      title: 'Passages per gantry',
      report: 'toll_gantries',
      note: 'Visits to geofences marked as toll (is_toll), by the local day of entry.',
      chart: {
        type: 'bar',
        x: 'geofence_name',
        y: ['passages'],
        labels: ['toll passages'],
        yTitle: 'passages',
        horizontal: true,
      },
      tableOpts: { hide: ['geofence_id'] },
    },
    {
      // Counted in SQL over every passage of the range (the list below is paged).
      id: 'per-day',
      title: 'Toll passages per day',
      report: 'trend',
      extra: () => ({ grain: 'day' }),
      chart: {
        type: 'bar',
        x: 'period',
        y: ['toll_passages'],
        labels: ['toll passages per day'],
        yTitle: 'passages',
      },
      table: false,
    },
    { id: 'tolls', title: 'Toll passages', report: 'tolls' },
    {
      id: 'charges',
      title: 'Toll charges per passage',
      report: 'toll_charges',
      note: 'The tariff of the gantry and the vehicle class on the local day of the passage (prices file FLEETSYNC_PRICES). A passage without a tariff has a blank charge and says "No tariff": it is not free, and not in the total.',
      tableOpts: {
        hide: ['zone', 'geofence_id', 'local_date'],
        cellClass: (col, v) => (col === 'tariff_status' && v !== 'tariff' ? 'bad' : ''),
      },
    },
  ],
});
