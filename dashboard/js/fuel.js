// Fuel, with the drill-down fleet → vehicle → month → the counter windows behind the number.
// Every level is a plain link (vehicle=…, month=…), so it can be shared and the back button
// works; each level's table downloads as its own CSV.
import { drillCrumbs, who } from './drill.js';
import { dayText } from './table.js';
import { hrefWith, startPage } from './page.js';

startPage({
  title: 'Fuel',
  header: drillCrumbs('fuel.html'),
  sections: [
    {
      id: 'fuel',
      title: 'Fuel used per vehicle and month (L)',
      report: 'fuel',
      note: 'ECU counter differences; a window whose counter went down, or that lacks a reading at either end, is left out (never negative) and listed below. Vehicles without a counter use the level estimate; electric and sensorless vehicles are listed with their source and no litres. A month never synced reads "not synced" (a hatched gap in the chart), never 0. Click a vehicle to open it, a month to see the counter windows behind its fuel used.',
      chart: {
        type: 'bar',
        x: 'period',
        y: ['fuel_used_l'],
        sortX: true,
        labels: ['fuel used (L)'],
        yTitle: 'litres',
      },
      tableOpts: {
        link: (col, r) => {
          if (col === 'registration') return hrefWith('fuel.html', { vehicle: r.vehicle_id, month: null });
          if (col === 'period') return hrefWith('fuel.html', { vehicle: r.vehicle_id, month: r.period });
          return null;
        },
      },
    },
    {
      id: 'windows',
      title: 'Fuel windows behind the month',
      heading: (f, d) => `Fuel windows behind ${who(f)} in ${dayText(d.month)}`,
      report: 'fuel_windows',
      when: (_f, d) => Boolean(d.month),
      query: (f, d) => ({ vehicle: f.vehicle, department: f.department, month: d.month }),
      note: 'Fuel used adds up to the month’s fuel used; windows with status "left out" (the counter went down or a reading is missing) are not counted, with their reason and span.',
      tableOpts: {
        hide: ['zone', 'department', 'ledger_reason'],
        cellClass: (col, v) => (col === 'status' && v !== 'counted' ? 'bad' : ''),
      },
    },
    {
      id: 'excluded',
      title: 'Fuel-counter windows left out of fuel used',
      report: 'excluded_fuel_windows',
      when: (_f, d) => !d.month,
      note: 'Counter windows whose counter went down (a reset) or that lack a reading at either end: the litres used in them are not known, so they are not counted. The download carries the reason code (fuel_counter_went_down, fuel_counter_missing).',
    },
    {
      id: 'refuels',
      title: 'Refuels',
      report: 'refuels',
      when: (_f, d) => !d.month,
      note: 'Every fill, once (the API lists some twice). The driver is the driver of the trip that ended at most an hour before the fill; blank when unknown. The downloads carry the driver id too.',
      tableOpts: { hide: ['zone', 'department', 'local_date', 'driver_id'] },
    },
    {
      id: 'reconciliation',
      title: 'Fuel filled vs used per vehicle and month (L)',
      report: 'fuel_reconciliation',
      when: (_f, d) => !d.month,
      note: 'Litres filled (the fills) against litres used (the fuel report). Filled is blank where fills are not synced for the vehicle-month (a vehicle without a level sensor, or a month not pulled yet), never 0. The chart compares the vehicle-months whose fills are known, so both bars cover the same vehicles.',
      chart: {
        type: 'bar',
        x: 'period',
        y: ['filled_l', 'used_l'],
        sortX: true,
        labels: ['filled (L)', 'used (L)'],
        yTitle: 'litres',
        // like with like: a vehicle-month without known fills would add litres used and no fills
        rows: (rows) => rows.filter((r) => r.filled_l !== null),
      },
    },
    {
      id: 'drops',
      title: 'Suspected fuel drops',
      report: 'fuel_drops',
      when: (_f, d) => !d.month,
      note: 'Falls of the tank level larger than the threshold (FLEETSYNC_FUEL_DROP_L, default 8 L) within 30 minutes while no trip runs, from the level series of vehicles with a level sensor. Listed for investigation; never subtracted from fuel used. Parked is blank where the trips are not synced (unknown).',
      tableOpts: { hide: ['zone', 'department', 'local_date'] },
    },
  ],
});
