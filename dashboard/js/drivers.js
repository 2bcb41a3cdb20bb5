// Drivers: distance and trips per driver (from the trips' driver ids), carpool bookings and late
// returns, per local month, by name (the id stays in the download; a driver without a known name
// reads as their id).
import { startPage } from './page.js';
import { fmtQty } from './table.js';
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */

/**
 * Says above the chart what share of the range's trip distance is attributed to a driver (issue
 * 25): the rest is in the "no driver recorded" rows (driver_id blank), so the page never reads as
 * the whole fleet when only some trips carry a driver. Unknown (trips not synced) says so.
 * @param {AnyRow[]} rows every row of the range
 */
function showAttributed(rows) {
  let all = 0;
  let none = 0;
  let known = false;
  for (const r of rows) {
    if (typeof r.distance_km !== 'number') continue;
    known = true;
    all += r.distance_km;
    if (r.driver_id === null) none += r.distance_km;
  }
  let p = document.getElementById('drivers-attributed');
  if (!p) {
    p = document.createElement('p');
    p.id = 'drivers-attributed';
    p.className = 'coverage-note';
    document.querySelector('#sec-drivers .chart')?.before(p);
  }
  p.textContent = !known
    ? 'Attributed to a driver: unknown (the trips are not synced)'
    : all === 0
      ? 'No trip distance in the range'
      : `${fmtQty(((all - none) / all) * 100, '%', 1)} of the fleet’s trip distance is attributed to a driver ` +
        `(${fmtQty(all - none, 'km', 1)} of ${fmtQty(all, 'km', 1)}); the rest, ${fmtQty(none, 'km', 1)}, is in the “no driver recorded” rows.`;
}

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
      note: 'Distance and trips from the trips each driver is identified on (per-trip distance: fleet totals come from the odometer); bookings by the month they are scheduled to start, late from booking_status. Trips without a driver are the “no driver recorded” row of each month. Blank = not synced.',
      chart: {
        type: 'bar',
        x: 'driver_name',
        y: ['distance_km'],
        labels: ['distance (km)'],
        yTitle: 'km',
        horizontal: true,
        rows: (rows) => {
          showAttributed(rows);
          /** @type {Map<unknown, AnyRow>} */
          const by = new Map();
          for (const r of rows) {
            const k = r.driver_name ?? (r.driver_id === null ? null : `${r.driver_id} (no name known)`);
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
      tableOpts: {
        hide: ['zone', 'driver_id'],
        // no name known (GET /drivers refused, or a driver not listed): the id, said as such,
        // never a blank Driver cell
        cellNode: (col, value, row) => {
          if (col !== 'driver_name' || value !== null || row.driver_id === null) return null;
          const s = document.createElement('span');
          s.className = 'no-name';
          s.textContent = `${row.driver_id} (no name known)`;
          s.title = 'The driver list gave no name for this id';
          return s;
        },
      },
    },
  ],
});
