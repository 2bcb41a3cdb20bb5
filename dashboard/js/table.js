// Sortable tables with a totals row. Totals sum the same numbers the JSON (and the CSV) hold,
// rounded to 3 decimals like the reports, so they tie to a spreadsheet sum of the download.
// Cells show the CSV's numbers with thousands separators (the unit is in the column name, as in
// the CSV); each numeric cell keeps the bare number in data-value.
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */
/** @typedef {import('./types.d.ts').Cell} Cell */
/** @typedef {import('./types.d.ts').ColumnInfo} ColumnDef */

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** @param {Cell | undefined} v */
export const fmt = (v) => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
};

/**
 * A quantity for people: thousands separators, at most `digits` decimals, optional unit; '' when
 * unknown (null), never 0.
 * @param {number | null | undefined} v
 */
export function fmtQty(v, unit = '', digits = 3) {
  if (v === null || v === undefined) return '';
  const s = new Intl.NumberFormat('en-US', { maximumFractionDigits: digits }).format(v);
  return unit ? `${s} ${unit}` : s;
}

/**
 * The label of a reason code, when the column holds codes (the API sends `labels`); else undefined.
 * @param {ColumnDef} col
 * @param {Cell | undefined} v
 * @returns {string | undefined}
 */
const labelOf = (col, v) =>
  col.labels && typeof v === 'string' && Object.hasOwn(col.labels, v) ? col.labels[v] : undefined;

/**
 * How a cell reads in the table: quantities grouped, ids as they are, times without the T, a
 * reason code as its label (the CSV keeps the code).
 * @param {ColumnDef} col
 * @param {Cell | undefined} v
 */
export function cellText(col, v) {
  if (v === null || v === undefined) return '';
  const label = labelOf(col, v);
  if (label !== undefined) return label;
  if (typeof v === 'number' && (col.kind === 'number' || col.total)) return NUMBER.format(v);
  if (col.kind === 'time' && typeof v === 'string') return v.replace('T', ' ');
  return fmt(v);
}

/**
 * @param {readonly AnyRow[]} rows
 * @param {string} col
 */
export function totalOf(rows, col) {
  let s = 0;
  for (const r of rows) {
    const v = r[col];
    if (typeof v === 'number') s += v;
  }
  return Math.round(s * 1000) / 1000;
}

/**
 * "Showing N of M rows — download the CSV for all" when the API sent one page of a larger
 * result (`total` > rows), else null.
 * @param {number} shown
 * @param {number | undefined} total
 */
export function pageNote(shown, total) {
  if (typeof total !== 'number' || total <= shown) return null;
  const p = document.createElement('p');
  p.className = 'page-note';
  p.textContent = `Showing ${NUMBER.format(shown)} of ${NUMBER.format(total)} rows — download the CSV for all.`;
  return p;
}

/**
 * Renders `rows` into `container` as a table of `columns` (from the API: name, kind, total).
 * opts: hide (column names), cellClass(col, value, row), link(col, row) → href for a drill-down
 * link in the cell, empty (the message when there are no rows), total and totals (the API's row
 * count and sums over all rows: when the rows are one page, the totals row shows those, so it
 * still ties to the CSV).
 * @template {AnyRow} R
 * @param {HTMLElement} container
 * @param {readonly ColumnDef[]} columns
 * @param {readonly R[]} rows
 * @param {import('./types.d.ts').TableOpts<R>} [opts]
 */
export function renderTable(container, columns, rows, opts = {}) {
  container.replaceChildren();
  const visible = columns.filter((c) => !(opts.hide ?? ['zone']).includes(c.name));
  const table = document.createElement('table');
  table.className = 'report';
  const thead = table.createTHead().insertRow();
  /** @type {string | null} */
  let sortCol = null;
  let asc = true;
  const tbody = table.createTBody();
  const fill = () => {
    const sorted = [...rows];
    if (sortCol) {
      const col = sortCol;
      sorted.sort((a, b) => {
        const x = a[col];
        const y = b[col];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * (asc ? 1 : -1);
      });
    }
    tbody.replaceChildren();
    for (const r of sorted) {
      const tr = tbody.insertRow();
      for (const c of visible) {
        const td = tr.insertCell();
        const href = opts.link ? opts.link(c.name, r) : null;
        if (href) {
          const a = document.createElement('a');
          a.href = href;
          a.className = 'drill';
          a.textContent = cellText(c, r[c.name]);
          td.append(a);
        } else td.textContent = cellText(c, r[c.name]);
        if (labelOf(c, r[c.name]) !== undefined) {
          td.title = `code: ${r[c.name]}`;
          td.dataset.code = String(r[c.name]);
        }
        if (c.kind === 'number' || c.kind === 'integer') {
          td.className = 'num';
          if (typeof r[c.name] === 'number') td.dataset.value = String(r[c.name]);
        }
        // A figure unknown because its grain was never synced (issue 12) reads "not synced"; a blank
        // stays "not applicable" (an EV's litres in a synced month, a text column).
        if (
          (c.kind === 'number' || c.kind === 'integer') &&
          r[c.name] == null &&
          r.coverage === 'not_synced'
        ) {
          td.textContent = 'not synced';
          td.classList.add('not-synced');
        }
        if (opts.cellClass) {
          const cls = opts.cellClass(c.name, r[c.name], r);
          if (cls) td.classList.add(cls);
        }
      }
    }
  };
  for (const c of visible) {
    const th = document.createElement('th');
    th.textContent = c.name;
    th.dataset.col = c.name;
    th.tabIndex = 0;
    th.addEventListener('click', () => {
      asc = sortCol === c.name ? !asc : true;
      sortCol = c.name;
      for (const h of thead.cells) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      fill();
    });
    thead.append(th);
  }
  fill();
  const total = opts.total;
  const paged = typeof total === 'number' && total > rows.length;
  const allRows = paged ? total : rows.length;
  if (visible.some((c) => c.total) && rows.length) {
    const tf = table.createTFoot().insertRow();
    tf.className = 'totals';
    visible.forEach((c, i) => {
      const td = tf.insertCell();
      if (c.total) {
        const sum = opts.totals?.[c.name];
        const t = paged && typeof sum === 'number' ? sum : totalOf(rows, c.name);
        td.textContent = NUMBER.format(t);
        td.className = 'num';
        td.dataset.col = c.name;
        td.dataset.value = String(t);
      } else if (i === 0) td.textContent = `Total (${NUMBER.format(allRows)} row${allRows === 1 ? '' : 's'})`;
    });
  }
  if (!rows.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = opts.empty ?? 'No rows for this filter.';
    container.append(p);
    return;
  }
  const note = pageNote(rows.length, opts.total);
  if (note) container.append(note);
  container.append(table);
}
