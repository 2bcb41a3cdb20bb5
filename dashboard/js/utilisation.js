// Utilisation and idle time: tiles for the range, the trend by day, the vehicle ranking and the
// after-hours list, with the drill-down fleet → vehicle → month → its days. The tiles are the
// sums of the utilisation report (its download); a figure never synced shows '—', never 0.
import { drillCrumbs, who } from './drill.js';
import { hrefWith, startPage } from './page.js';
import { dayText, fmtQty } from './table.js';
import { tile } from './tiles.js';
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */

/**
 * Aggregated rows handed back to the chart as the report's rows (the chart reads only x and y).
 * @template R
 * @param {AnyRow[]} rows @param {R[]} _like
 * @returns {R[]}
 */
const asRowsOf = (rows, _like) => /** @type {R[]} */ (/** @type {unknown} */ (rows));

/**
 * Sums of `cols` per value of `key` (null when every value summed is unknown).
 * @param {AnyRow[]} rows @param {string} key @param {string[]} cols
 * @returns {AnyRow[]}
 */
function sumBy(rows, key, cols) {
  /** @type {Map<unknown, AnyRow>} */
  const out = new Map();
  for (const r of rows) {
    const k = r[key];
    const acc = out.get(k) ?? Object.fromEntries([[key, k], ...cols.map((c) => [c, null])]);
    for (const c of cols) {
      const v = r[c];
      if (typeof v === 'number') acc[c] = Number(acc[c] ?? 0) + v;
    }
    out.set(k, acc);
  }
  return [...out.values()];
}

/**
 * The day's coverage over its vehicle-days, for the chart (issue 25): complete when every one is,
 * not synced when none was pulled, else partial (some open for late data, or some not synced).
 * @param {AnyRow[]} sums rows of sumBy(rows, key, …)
 * @param {AnyRow[]} rows the report's rows
 * @param {string} key
 * @returns {AnyRow[]}
 */
function withCoverage(sums, rows, key) {
  /** @type {Map<unknown, Set<unknown>>} */
  const seen = new Map();
  for (const r of rows) seen.set(r[key], (seen.get(r[key]) ?? new Set()).add(r.coverage));
  return sums.map((s) => {
    const c = seen.get(s[key]) ?? new Set();
    const one = c.size === 1 ? [...c][0] : null;
    return { ...s, coverage: one === 'complete' || one === 'not_synced' ? one : 'partial' };
  });
}

/** Utilisation (days used ÷ days available) and idle share of aggregated rows. */
const withShares = (/** @type {AnyRow[]} */ rows) =>
  rows.map((r) => ({
    ...r,
    utilisation:
      typeof r.days_available === 'number' && r.days_available > 0
        ? Number(r.days_used) / r.days_available
        : null,
    idle_share:
      typeof r.idle_h === 'number' && Number(r.idle_h) + Number(r.driving_h) > 0
        ? r.idle_h / (Number(r.idle_h) + Number(r.driving_h))
        : null,
  }));

/**
 * @param {import('./types.d.ts').ReportAnswer<AnyRow>} result
 * @param {import('./types.d.ts').SectionParts} parts
 */
function tiles(result, { tableDiv }) {
  const known = result.rows.some((r) => r.driving_h !== null);
  const t = result.totals ?? {};
  /** @param {string} key */
  const sum = (key) => (known ? Number(t[key] ?? 0) : null);
  const driving = sum('driving_h');
  const idle = sum('idle_h');
  const used = sum('days_used');
  const available = sum('days_available');
  const pct = (/** @type {number | null} */ a, /** @type {number | null} */ b) =>
    a === null || b === null || b === 0 ? '' : fmtQty((a / b) * 100, '%', 1);
  tableDiv.replaceChildren(
    tile('util-driving', 'Driving', fmtQty(driving, 'h', 1), 'engine on, moving'),
    tile(
      'util-idle',
      'Idling',
      fmtQty(idle, 'h', 1),
      `${pct(idle, idle === null || driving === null ? null : idle + driving) || '—'} of engine-on time`,
    ),
    tile(
      'util-utilisation',
      'Utilisation',
      pct(used, available),
      `${fmtQty(used) || '—'} of ${fmtQty(available) || '—'} working days used`,
    ),
    tile(
      'util-after',
      'After hours',
      fmtQty(sum('after_hours_h'), 'h', 1),
      'engine on outside working hours',
    ),
  );
}

startPage({
  title: 'Utilisation',
  header: drillCrumbs('utilisation.html'),
  sections: [
    {
      id: 'tiles',
      title: 'Utilisation in the range',
      report: 'utilisation',
      when: (_f, d) => !d.month,
      note: 'Sums of the utilisation download (whole local months the range touches). Days never synced are left out and shown blank, never as 0.',
      render: tiles,
    },
    {
      id: 'trend',
      title: 'Driving and idling per day (h)',
      heading: (f, d) =>
        `Driving and idling per day of ${who(f)}${d.month ? ` in ${dayText(d.month)}` : ''} (h)`,
      report: 'utilisation_days',
      query: (f, d) =>
        d.month ? { vehicle: f.vehicle, department: f.department, month: d.month } : { ...f },
      chart: {
        type: 'bar',
        x: 'day',
        y: ['driving_h', 'idle_h'],
        labels: ['driving (h)', 'idling (h)'],
        yTitle: 'h',
        rows: (rows) =>
          asRowsOf(
            withCoverage(sumBy(rows, 'day', ['driving_h', 'idle_h', 'after_hours_h']), rows, 'day'),
            rows,
          ),
      },
      table: false,
    },
    {
      id: 'ranking',
      title: 'Vehicles by utilisation',
      report: 'utilisation',
      when: (_f, d) => !d.month,
      note: 'Utilisation = working days used ÷ working days synced; idle share = idling ÷ engine-on time. Click a vehicle to open it, a month to see its days.',
      chart: {
        type: 'bar',
        x: 'registration',
        y: ['utilisation', 'idle_share'],
        labels: ['utilisation', 'idle share'],
        percent: true,
        horizontal: true,
        rows: (rows) =>
          asRowsOf(
            withShares(
              sumBy(rows, 'registration', ['days_used', 'days_available', 'idle_h', 'driving_h']),
            ).sort((a, b) => Number(b.utilisation ?? -1) - Number(a.utilisation ?? -1)),
            rows,
          ),
      },
      tableOpts: {
        hide: ['zone', 'days_in_month'],
        link: (col, r) => {
          if (col === 'registration')
            return hrefWith('utilisation.html', { vehicle: r.vehicle_id, month: null });
          if (col === 'period')
            return hrefWith('utilisation.html', { vehicle: r.vehicle_id, month: r.period });
          return null;
        },
      },
    },
    {
      id: 'after-hours',
      title: 'After-hours use',
      heading: (f, d) =>
        `Days of ${who(f)} with engine-on time after hours${d.month ? ` in ${dayText(d.month)}` : ''}`,
      report: 'utilisation_days',
      query: (f, d) =>
        d.month ? { vehicle: f.vehicle, department: f.department, month: d.month } : { ...f },
      note: 'Every vehicle-day of the range; sort by after hours to list the after-hours use first. Blank = not synced.',
      chart: {
        type: 'bar',
        x: 'registration',
        y: ['after_hours_h'],
        labels: ['after hours (h)'],
        yTitle: 'h',
        horizontal: true,
        rows: (rows) =>
          asRowsOf(
            sumBy(rows, 'registration', ['after_hours_h']).sort(
              (a, b) => Number(b.after_hours_h ?? -1) - Number(a.after_hours_h ?? -1),
            ),
            rows,
          ),
      },
      // coverage feeds the chart; the table's synced column says it
      tableOpts: { hide: ['zone', 'department', 'coverage'] },
    },
  ],
});
