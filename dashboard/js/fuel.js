import { startPage } from './page.js';

startPage({
  title: 'Fuel',
  sections: [
    {
      id: 'fuel',
      title: 'Fuel used per vehicle and month (l)',
      report: 'fuel',
      note: 'ECU counter differences; a window whose counter went down is left out (never negative). Vehicles without a counter use the level estimate.',
      chart: {
        type: 'bar',
        x: 'period',
        y: ['fuel_used_l'],
        sortX: true,
        labels: ['fuel used (l)'],
        yTitle: 'litres',
      },
    },
    { id: 'excluded', title: 'Fuel-counter windows left out of fuel used', report: 'excluded_fuel_windows' },
  ],
});
