import { startPage } from './page.js';

startPage({
  title: 'Tolls',
  sections: [
    {
      id: 'tolls',
      title: 'Toll passages',
      report: 'tolls',
      chart: {
        type: 'bar',
        x: 'local_date',
        y: ['passages'],
        agg: 'count',
        labels: ['toll passages'],
        yTitle: 'passages',
      },
    },
  ],
});
