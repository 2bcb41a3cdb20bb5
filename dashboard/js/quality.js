import { startPage } from './page.js';
import { scrollBox } from './table.js';

/** @type {Record<string, string>} */
const STATUS_CLASS = {
  synced: 'cov-synced',
  flagged: 'cov-flagged',
  incomplete: 'cov-incomplete',
  missing: 'cov-missing',
};

/**
 * Runs of consecutive days in the same month: [['2026-03', 31], ['2026-04', 12]].
 * @param {readonly string[]} days
 */
function monthSpans(days) {
  /** @type {[string, number][]} */
  const spans = [];
  for (const d of days) {
    const m = d.slice(0, 7);
    const last = spans.at(-1);
    if (last && last[0] === m) last[1]++;
    else spans.push([m, 1]);
  }
  return spans;
}

// The days are already local calendar days of the account's zone (the report groups by them), so
// a month label is plain calendar arithmetic: format it at UTC to keep the browser's zone out.
const MONTH = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
/** @param {string} ym */
const monthLabel = (ym) => MONTH.format(Date.UTC(Number(ym.slice(0, 4)), Number(ym.slice(5, 7)) - 1, 1));

/**
 * The coverage calendar: a vehicle per row, a local day per column, a coloured cell per status,
 * and a header row naming each month ("Mar 2026") above its days.
 * The API pages its rows (vehicle by vehicle, day by day): the calendar reads every page, so it
 * shows every vehicle and every day of the range; it scrolls with the vehicle column fixed.
 * @param {import('./types.d.ts').ReportAnswerOf<'coverage'>} result
 * @param {import('./types.d.ts').SectionParts} parts
 */
async function calendar(result, { tableDiv, all, current }) {
  const rows = /** @type {import('./types.d.ts').ReportRow<'coverage'>[]} */ (
    result.total > result.rows.length ? await all() : result.rows
  );
  if (!current()) return;
  const days = [...new Set(rows.map((r) => r.day ?? ''))].filter(Boolean).sort();
  /** @type {Map<number | null, { registration: string | null, cells: Map<string | null, string | null> }>} */
  const byVehicle = new Map();
  for (const r of rows) {
    if (!byVehicle.has(r.vehicle_id))
      byVehicle.set(r.vehicle_id, { registration: r.registration, cells: new Map() });
    byVehicle.get(r.vehicle_id)?.cells.set(r.day, r.status);
  }
  const table = document.createElement('table');
  table.className = 'calendar';
  table.id = 'coverage-calendar';
  const thead = table.createTHead();
  const monthRow = thead.insertRow();
  monthRow.className = 'cal-months';
  monthRow.append(
    Object.assign(document.createElement('th'), {
      textContent: 'Vehicle',
      rowSpan: 2,
      className: 'cal-vehicle',
    }),
  );
  for (const [month, n] of monthSpans(days)) {
    const th = document.createElement('th');
    th.className = 'cal-month';
    th.colSpan = n;
    th.scope = 'colgroup';
    th.dataset.month = month;
    th.textContent = monthLabel(month);
    monthRow.append(th);
  }
  const head = thead.insertRow();
  const firsts = new Set(monthSpans(days).map(([m]) => days.find((d) => d.startsWith(m))));
  /** @param {string} d */
  const edge = (d) => (firsts.has(d) ? 'month-start' : '');
  for (const d of days)
    head.append(
      Object.assign(document.createElement('th'), { textContent: d.slice(8), title: d, className: edge(d) }),
    );
  const body = table.createTBody();
  for (const [id, v] of byVehicle) {
    const tr = body.insertRow();
    tr.dataset.vehicle = String(id);
    const name = document.createElement('th');
    name.scope = 'row';
    name.className = 'cal-vehicle';
    name.textContent = v.registration ?? String(id);
    tr.append(name);
    for (const d of days) {
      const td = tr.insertCell();
      const s = v.cells.get(d) ?? 'missing';
      td.className = [STATUS_CLASS[s] ?? '', edge(d)].filter(Boolean).join(' ');
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
  const count = document.createElement('p');
  count.className = 'note cal-count';
  // the report lists the range's local days that have ended (kpis' range_days): say so when the
  // range runs on into today, or a day of the filter seems lost
  const to = result.params.to ?? '';
  const cut =
    to && days.length && (days.at(-1) ?? '') < to
      ? ' Today and later days are not listed: they have not ended.'
      : '';
  count.textContent = `${byVehicle.size.toLocaleString('en-US')} vehicles × ${days.length} days.${cut}`;
  tableDiv.replaceChildren(legend, count, scrollBox(table, 'Coverage calendar'));
}

/**
 * The endpoints this account may not read (403) or does not have (404): named, with the streams
 * left out while it lasts, so that no page's empty figure reads as a measured zero.
 * @type {import('./types.d.ts').HeaderHook}
 */
function endpointsHeader(box, status) {
  const mine = (status.endpoints_refused ?? []).filter((e) => e.account === status.account);
  if (!mine.length) {
    box.replaceChildren();
    return;
  }
  const sec = document.createElement('section');
  sec.className = 'card';
  sec.id = 'sec-endpoints';
  const h = document.createElement('h2');
  h.textContent = 'Not permitted or not available for these credentials';
  const ul = document.createElement('ul');
  ul.id = 'endpoints-refused';
  for (const e of mine) {
    const li = document.createElement('li');
    li.dataset.endpoint = e.endpoint;
    li.dataset.state = e.state;
    li.textContent =
      `${e.endpoint} is ${e.text} (HTTP ${e.last_status ?? '?'} since ${e.since.slice(0, 16).replace('T', ' ')}, ` +
      `last asked ${e.last_probed.slice(0, 16).replace('T', ' ')}): ${e.streams.join(', ') || 'no stream'} not synced.`;
    ul.append(li);
  }
  const p = document.createElement('p');
  p.className = 'note';
  p.textContent =
    'Not a failure: the runs stay ok. Every sync asks each of these once and resumes its streams when the API answers; an alert goes out when one changes.';
  sec.append(h, ul, p);
  box.replaceChildren(sec);
}

startPage({
  title: 'Data quality',
  header: endpointsHeader,
  sections: [
    {
      id: 'coverage',
      title: 'Coverage calendar (odometer, local days)',
      report: 'coverage',
      render: calendar,
    },
    { id: 'excluded', title: 'Excluded windows', report: 'excluded_windows' },
    { id: 'incomplete', title: 'Incomplete and failed windows', report: 'incomplete_windows' },
    { id: 'unknown-values', title: 'Values this version does not know', report: 'unknown_values' },
  ],
});
