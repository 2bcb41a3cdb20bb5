// Fuel, with the drill-down fleet → vehicle → month → the counter windows behind the number.
// Every level is a plain link (vehicle=…, month=…), so it can be shared and the back button
// works; each level's table downloads as its own CSV.
import { drillCrumbs, monthTrips, who } from './drill.js';
import { dayText } from './table.js';
import { driverTripsHref, hrefWith, startPage } from './page.js';

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
    // Fuel efficiency (issue 27): L/100 km per vehicle and per driver; a figure drills down to the
    // month's windows and trips (vehicle) or the driver's trips (Scores page).
    {
      id: 'efficiency',
      title: 'Fuel efficiency per vehicle and month (L/100 km)',
      report: 'fuel_efficiency',
      when: (_f, d) => !d.month,
      note: (result) =>
        `Counter litres over odometer km of the same windows, only where both count (no reset, tracker change or counter fault); vehicles with a fuel counter. Baseline: the vehicle’s own three months before; an outlier is more than ${result.settings?.fuel_outlier_pct ?? '—'} % above it (FLEETSYNC_FUEL_OUTLIER_PCT). Class: every counter vehicle of the same class that month. Blank = unknown, never 0. Click a month to see the windows and trips behind it.`,
      chart: {
        type: 'bar',
        x: 'registration',
        y: ['l_per_100km', 'baseline_l_per_100km'],
        labels: ['L/100 km (latest month)', 'baseline (L/100 km)'],
        yTitle: 'L/100 km',
        // one bar per vehicle: its latest month with a figure (L/100 km do not add up over months)
        rows: (rows) => {
          const last = new Map();
          for (const r of rows) if (r.l_per_100km !== null) last.set(r.vehicle_id, r);
          return [...last.values()];
        },
      },
      tableOpts: {
        hide: ['zone', 'department', 'vehicle_id'],
        link: (col, r) =>
          col === 'period' ? hrefWith('fuel.html', { vehicle: r.vehicle_id, month: r.period }) : null,
        cellClass: (col, v) => (col === 'outlier' && v === true ? 'bad' : ''),
      },
    },
    {
      id: 'efficiency-drivers',
      title: 'Fuel efficiency per driver and month (L/100 km)',
      report: 'fuel_efficiency_drivers',
      when: (_f, d) => !d.month,
      note: 'A counted window’s litres shared among the trips that start in it by trip distance (litres × trip km ÷ the window’s odometer km): each trip carries its window’s L/100 km; litres of distance no trip covers are carried by nobody. Trips without a driver are the “no driver recorded” row. Click a driver (or the trip count) to see the month’s trips.',
      tableOpts: {
        hide: ['zone', 'driver_id'],
        // the name (when the API names the driver) and the trip count open the driver's trips
        link: (col, r) =>
          (col === 'driver_name' && r.driver_name !== null) || col === 'trips' ? driverTripsHref(r) : null,
      },
    },
    monthTrips(
      'The trips of the vehicle-month: the per-driver fuel efficiency shares the counted litres among them by distance.',
    ),
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
