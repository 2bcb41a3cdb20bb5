// Drivers: distance and trips per driver (from the trips' driver ids), carpool bookings and late
// returns, per local month, by name (the id stays in the download).
import { startPage } from './page.js';
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */

/**
 * Aggregated rows handed back to the chart as the report's rows (the chart reads only x and y).
 * @template R
 * @param {AnyRow[]} rows @param {R[]} _like
 * @returns {R[]}
 */
const asRowsOf = (rows, _like) => /** @type {R[]} */ (/** @type {unknown} */ (rows));

startPage({
  title: 'Drivers',
  sections: [
    {
      id: 'drivers',
      title: 'Distance per driver',
      report: 'drivers',
      note: 'Distance and trips from the trips each driver is identified on (per-trip distance: fleet totals come from the odometer); bookings by the month they are scheduled to start, late from booking_status. Blank = not synced.',
      chart: {
        type: 'bar',
        x: 'driver_name',
        y: ['distance_km'],
        labels: ['distance (km)'],
        yTitle: 'km',
        horizontal: true,
        rows: (rows) => {
          /** @type {Map<unknown, AnyRow>} */
          const by = new Map();
          for (const r of rows) {
            const k = r.driver_name ?? r.driver_id;
            const acc = by.get(k) ?? { driver_name: k, distance_km: null };
            if (typeof r.distance_km === 'number')
              acc.distance_km = Number(acc.distance_km ?? 0) + r.distance_km;
            by.set(k, acc);
          }
          return asRowsOf(
            [...by.values()].sort((a, b) => Number(b.distance_km ?? -1) - Number(a.distance_km ?? -1)),
            rows,
          );
        },
      },
      tableOpts: { hide: ['zone', 'driver_id'] },
    },
  ],
});
