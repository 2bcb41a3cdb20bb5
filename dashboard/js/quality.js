import { startPage } from './page.js';
import { pageNote } from './table.js';

const STATUS_CLASS = {
  synced: 'cov-synced',
  flagged: 'cov-flagged',
  incomplete: 'cov-incomplete',
  missing: 'cov-missing',
};

/**
 * The coverage calendar: a vehicle per row, a local day per column, a coloured cell per status.
 * The API pages its rows (vehicle by vehicle, day by day): a vehicle cut off by the page end is
 * left out rather than shown with "missing" days it has not been sent.
 */
function calendar(result, { tableDiv }) {
  const days = [...new Set(result.rows.map((r) => r.day))].sort();
  const byVehicle = new Map();
  const last = result.rows.at(-1)?.vehicle_id;
  const cut = result.total > result.rows.length && result.rows[0]?.vehicle_id !== last ? last : undefined;
  for (const r of result.rows) {
    if (cut !== undefined && r.vehicle_id === cut) continue;
    if (!byVehicle.has(r.vehicle_id))
      byVehicle.set(r.vehicle_id, { registration: r.registration, cells: new Map() });
    byVehicle.get(r.vehicle_id).cells.set(r.day, r.status);
  }
  const table = document.createElement('table');
  table.className = 'calendar';
  table.id = 'coverage-calendar';
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement('th'), { textContent: 'vehicle' }));
  for (const d of days)
    head.append(Object.assign(document.createElement('th'), { textContent: d.slice(8), title: d }));
  const body = table.createTBody();
  for (const [id, v] of byVehicle) {
    const tr = body.insertRow();
    tr.dataset.vehicle = String(id);
    tr.insertCell().textContent = v.registration ?? String(id);
    for (const d of days) {
      const td = tr.insertCell();
      const s = v.cells.get(d) ?? 'missing';
      td.className = STATUS_CLASS[s] ?? '';
      td.dataset.status = s;
      td.title = `${v.registration} ${d}: ${s}`;
    }
  }
  const legend = document.createElement('p');
  legend.className = 'legend';
  for (const [s, cls] of Object.entries(STATUS_CLASS)) {
    const span = document.createElement('span');
    span.className = `key ${cls}`;
    span.textContent = s;
    legend.append(span, ' ');
  }
  const note = pageNote(result.rows.length, result.total);
  tableDiv.replaceChildren(...(note ? [note] : []), legend, table);
}

startPage({
  title: 'Data quality',
  sections: [
    {
      id: 'coverage',
      title: 'Coverage calendar (odometer, local days)',
      report: 'coverage',
      render: calendar,
    },
    { id: 'excluded', title: 'Excluded windows', report: 'excluded_windows' },
    { id: 'incomplete', title: 'Incomplete and failed windows', report: 'incomplete_windows' },
  ],
});
