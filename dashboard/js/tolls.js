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
  ],
});
