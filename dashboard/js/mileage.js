import { startPage } from './page.js';

startPage({
  title: 'Mileage',
  sections: [
    {
      id: 'mileage',
      title: 'Distance per vehicle and month (km)',
      report: 'mileage',
      note: 'Odometer windows with a reset or a tracker change are left out and listed below; "complete" is false while a month has gaps or incomplete windows.',
      chart: { type: 'bar', x: 'period', y: ['distance_km'], sortX: true },
    },
    { id: 'excluded', title: 'Windows left out of the totals', report: 'excluded_windows' },
  ],
});
