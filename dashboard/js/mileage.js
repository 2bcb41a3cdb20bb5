// Mileage, with the drill-down fleet → vehicle → month → the odometer windows and trips behind
// the number. Every level is a plain link (vehicle=…, month=…), so it can be shared and the back
// button works; each level's table downloads as its own CSV.
import { drillCrumbs, monthTrips, who } from './drill.js';
import { dayText } from './table.js';
import { hrefWith, startPage } from './page.js';

startPage({
  title: 'Mileage',
  header: drillCrumbs('mileage.html'),
  sections: [
    {
      id: 'mileage',
      title: 'Distance per vehicle and month (km)',
      report: 'mileage',
      note: 'Odometer windows with a reset or a tracker change are left out and listed below; "complete" is false while a month has gaps or incomplete windows; coverage says how many of its days were synced, and a month never synced reads "not synced" (a hatched gap in the chart), never 0. Click a vehicle to open it, a month to see the windows and trips behind its distance.',
      chart: {
        type: 'bar',
        x: 'period',
        y: ['distance_km'],
        sortX: true,
        labels: ['distance (km)'],
        yTitle: 'km',
      },
      tableOpts: {
        link: (col, r) => {
          if (col === 'registration') return hrefWith('mileage.html', { vehicle: r.vehicle_id, month: null });
          if (col === 'period') return hrefWith('mileage.html', { vehicle: r.vehicle_id, month: r.period });
          return null;
        },
      },
    },
    {
      id: 'windows',
      title: 'Odometer windows behind the month',
      heading: (f, d) => `Odometer windows behind ${who(f)} in ${dayText(d.month)}`,
      report: 'mileage_windows',
      when: (_f, d) => Boolean(d.month),
      query: (f, d) => ({ vehicle: f.vehicle, department: f.department, month: d.month }),
      note: 'Counted distance adds up to the month’s distance; windows not counted are left out, with the reason and their span.',
      tableOpts: { cellClass: (col, v, r) => (col === 'counted' && r.counted === false ? 'bad' : '') },
    },
    monthTrips(
      'Per-trip distances from the trip log, for checking; the month’s total comes from the odometer windows above, never from summing trips.',
    ),
    {
      id: 'excluded',
      title: 'Odometer windows left out of mileage',
      report: 'excluded_odometer_windows',
      when: (_f, d) => !d.month,
      note: 'Windows with an odometer reset or a tracker change: the API’s distance across them is meaningless, so they are not counted. Distance left out is the trip log’s distance in the window (blank when the trips there are not synced).',
      tableOpts: { hide: ['zone', 'department', 'ledger_reason'] },
    },
  ],
});
