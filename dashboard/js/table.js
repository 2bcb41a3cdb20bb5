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
 * A quantity for people: thousands separators and an optional unit; '' when unknown (null), never
 * 0. With `digits`, exactly that many decimals, so the tiles of a page read alike ("15,827.00
 * AUD" beside "41,357.42 AUD", "414.0 h" beside "3,119.6 h"); without, a count or a figure as
 * it is, at most 3 decimals.
 * @param {number | null | undefined} v
 * @param {string} [unit]
 * @param {number} [digits]
 */
export function fmtQty(v, unit = '', digits) {
  if (v === null || v === undefined) return '';
  const s = (digits === undefined ? NUMBER : fixedFormat(digits)).format(v);
  return unit ? `${s} ${unit}` : s;
}

/**
 * The label of a code, when the column holds codes (the API sends `labels`); else undefined.
 * @param {ColumnDef} col
 * @param {Cell | undefined} v
 * @returns {string | undefined}
 */
const labelOf = (col, v) =>
  col.labels && typeof v === 'string' && Object.hasOwn(col.labels, v) ? col.labels[v] : undefined;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** @type {Map<number, Intl.NumberFormat>} */
const fixed = new Map();
/** @param {number} places */
const fixedFormat = (places) => {
  let f = fixed.get(places);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: places, maximumFractionDigits: places });
    fixed.set(places, f);
  }
  return f;
};

/**
 * A local day "2026-11-23" as people write it, "23 Nov 2026"; a month "2026-11" as "Nov 2026".
 * @param {string} v
 */
export function dayText(v) {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?/.exec(v);
  if (!m) return v;
  const mon = MONTHS[Number(m[2]) - 1] ?? m[2];
  return m[3] ? `${Number(m[3])} ${mon} ${m[1]}` : `${mon} ${m[1]}`;
}

/**
 * A local instant as the API sends it (ISO with the account zone's offset, the wall time already
 * the account's) as people write it: "23 Nov 2026, 23:13". The zone is named once on the page.
 * @param {string} v
 */
export function dateTimeText(v) {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(v);
  return m ? `${dayText(m[1] ?? '')}, ${m[2]}` : v;
}

/**
 * Seconds as h:mm:ss ("26:03:09" for a day and more).
 * @param {number} v
 */
export function durationText(v) {
  const neg = v < 0;
  const t = Math.round(Math.abs(v));
  const h = Math.floor(t / 3600);
  const mm = String(Math.floor((t % 3600) / 60)).padStart(2, '0');
  const ss = String(t % 60).padStart(2, '0');
  return `${neg ? '-' : ''}${NUMBER.format(h)}:${mm}:${ss}`;
}

/**
 * The header people read, from the column's metadata: its label with the unit once,
 * "Distance (km)"; a percent column says % in its cells, not twice.
 * @param {ColumnDef} col
 */
export function headerText(col) {
  const label = col.label ?? col.name;
  return col.unit && col.display !== 'percent' ? `${label} (${col.unit})` : label;
}

/**
 * How a cell reads in the table, from the column's display kind (src/reports/columns.ts): fixed
 * decimals with thousands separators, percents ×100 with "%", local days and times as people
 * write them, durations h:mm:ss, codes by their labels, ids as they are. Unknown (null) is '',
 * and "unknown" for a yes/no (a blank there would read as "no").
 * @param {ColumnDef} col
 * @param {Cell | undefined} v
 */
export function cellText(col, v) {
  if (v === null || v === undefined) return col.display === 'boolean' ? 'unknown' : '';
  const label = labelOf(col, v);
  if (label !== undefined) return label;
  switch (col.display) {
    case 'integer':
      return typeof v === 'number' ? fixedFormat(0).format(v) : String(v);
    case 'decimal':
      return typeof v === 'number' ? fixedFormat(col.places ?? 3).format(v) : String(v);
    case 'percent':
      return typeof v === 'number' ? `${fixedFormat(col.places ?? 1).format(v * 100)} %` : String(v);
    case 'duration':
      return typeof v === 'number' ? durationText(v) : String(v);
    case 'datetime':
      return typeof v === 'string' ? dateTimeText(v) : String(v);
    case 'date':
    case 'month':
      return typeof v === 'string' ? dayText(v) : String(v);
    case 'boolean':
      return typeof v === 'boolean' ? (v ? 'Yes' : 'No') : String(v);
    case 'id':
    case 'enum':
    case 'text':
      return String(v);
    default:
      if (typeof v === 'number' && (col.kind === 'number' || col.total)) return NUMBER.format(v);
      return fmt(v);
  }
}

/** Numbers, days and times line up at the right. */
const NUMERIC = new Set(['integer', 'decimal', 'percent', 'duration']);
/** @param {ColumnDef} col */
export const isNumeric = (col) =>
  col.display ? NUMERIC.has(col.display) : col.kind === 'number' || col.kind === 'integer';

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
/**
 * Sort order of two cells: unknown last, numbers by value, text case-insensitively.
 * @param {Cell | undefined} x
 * @param {Cell | undefined} y
 */
export function compareCells(x, y) {
  if (x === y) return 0;
  if (x === null || x === undefined) return 1;
  if (y === null || y === undefined) return -1;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return collator.compare(String(x), String(y));
}

/**
 * @param {readonly AnyRow[]} rows
 * @param {string} col
 */
export function totalOf(rows, col) {
  /** @type {number | null} */
  let s = null;
  for (const r of rows) {
    const v = r[col];
    if (typeof v === 'number') s = (s ?? 0) + v;
  }
  // a sum of unknowns is unknown, never 0
  return s === null ? null : Math.round(s * 1000) / 1000;
}

/**
 * "Showing N of M rows — download the CSV for all" when the API sent one page of a larger
 * result (`total` > rows) and nothing offers the other pages, else null.
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

/** Page sizes offered by a paged table. */
export const PAGE_SIZES = [100, 500, 1000, 5000];

/**
 * A scrolling box for a table: reachable by keyboard, named, and marked `scrolls` (a shadow cue)
 * while it is wider than the screen.
 * @param {HTMLTableElement} table
 * @param {string} name
 */
export function scrollBox(table, name) {
  const box = document.createElement('div');
  box.className = 'scroll';
  box.tabIndex = 0;
  box.setAttribute('role', 'region');
  box.setAttribute('aria-label', `${name} (scrolls)`);
  box.append(table);
  const cue = () => {
    const more = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle('scrolls', more);
    box.classList.toggle('at-end', box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
  };
  box.addEventListener('scroll', cue, { passive: true });
  if (typeof ResizeObserver === 'function') new ResizeObserver(cue).observe(box);
  requestAnimationFrame(cue);
  return box;
}

/**
 * Renders `rows` into `container` as a table of `columns` (from the API: name, kind, total, and
 * how people read it: label, unit, display, places, labels). opts: hide (column names),
 * cellClass(col, value, row), link(col, row) → href for a drill-down link in the cell, empty (the
 * message when there are no rows), total and totals (the API's row count and sums over all rows),
 * name (of the table, for screen readers), pager (when the rows are one page of a larger result:
 * offset, limit and load({offset, limit, sort, dir}) for another page, sorted by the server).
 * Headers sort (click, Enter or Space) and say their order in aria-sort.
 * @template {AnyRow} R
 * @param {HTMLElement} container
 * @param {readonly ColumnDef[]} columns
 * @param {readonly R[]} rows
 * @param {import('./types.d.ts').TableOpts<R>} [opts]
 */
export function renderTable(container, columns, rows, opts = {}) {
  container.replaceChildren();
  const visible = columns.filter((c) => !(opts.hide ?? ['zone']).includes(c.name));
  if (!rows.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = opts.empty ?? 'No rows for this filter.';
    container.append(p);
    return;
  }
  const pager = opts.pager;
  const state = {
    /** @type {readonly R[]} */
    rows,
    total: typeof opts.total === 'number' ? opts.total : rows.length,
    totals: opts.totals,
    totalsBlank: opts.totalsBlank,
    offset: pager?.offset ?? 0,
    limit: pager?.limit ?? rows.length,
    /** @type {string | null} */
    sort: null,
    asc: true,
  };
  // The server sorts and pages when the rows are one page of more; else the table sorts itself.
  const serverSide = () => !!pager && state.total > state.rows.length;
  const table = document.createElement('table');
  table.className = 'report';
  const thead = table.createTHead().insertRow();
  const tbody = table.createTBody();
  const fill = () => {
    const sorted = [...state.rows];
    const col = state.sort;
    if (col && !serverSide())
      sorted.sort(
        (a, b) => compareCells(a[col], b[col]) * (state.asc || a[col] == null || b[col] == null ? 1 : -1),
      );
    tbody.replaceChildren();
    for (const r of sorted) {
      const tr = tbody.insertRow();
      for (const c of visible) {
        const td = tr.insertCell();
        td.dataset.col = c.name;
        const href = opts.link ? opts.link(c.name, r) : null;
        const node = opts.cellNode ? opts.cellNode(c.name, r[c.name], r, cellText(c, r[c.name])) : null;
        if (node) td.append(node);
        else if (href) {
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
        if (isNumeric(c)) {
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
  const status = document.createElement('p');
  status.className = 'pager-status';
  status.setAttribute('role', 'status');
  const controls = document.createElement('div');
  controls.className = 'pager';
  /** @param {number} offset */
  const load = async (offset) => {
    if (!pager) return;
    container.setAttribute('aria-busy', 'true');
    status.textContent = 'Loading rows…';
    try {
      const page = await pager.load({
        offset,
        limit: state.limit,
        sort: state.sort ?? undefined,
        dir: state.sort ? (state.asc ? 'asc' : 'desc') : undefined,
      });
      state.rows = /** @type {readonly R[]} */ (page.rows);
      state.total = page.total;
      state.totals = page.totals;
      state.totalsBlank = page.totals_blank;
      state.offset = page.offset ?? offset;
      fill();
      footer();
      pagerText();
    } catch (e) {
      status.textContent = `Could not load these rows: ${e instanceof Error ? e.message : String(e)}. Try again.`;
    } finally {
      container.removeAttribute('aria-busy');
    }
  };
  for (const c of visible) {
    const th = document.createElement('th');
    th.dataset.col = c.name;
    th.scope = 'col';
    if (isNumeric(c)) th.className = 'num';
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'sort';
    b.textContent = headerText(c);
    if (c.label && c.label !== c.name) b.title = `column ${c.name}`;
    th.append(b);
    // A button: Enter and Space sort too; the click bubbles to the header cell.
    th.addEventListener('click', () => {
      state.asc = state.sort === c.name ? !state.asc : true;
      state.sort = c.name;
      for (const h of thead.cells) {
        h.removeAttribute('aria-sort');
        h.querySelector('.arrow')?.remove();
      }
      th.setAttribute('aria-sort', state.asc ? 'ascending' : 'descending');
      const arrow = document.createElement('span');
      arrow.className = 'arrow';
      arrow.setAttribute('aria-hidden', 'true');
      arrow.textContent = state.asc ? ' ▲' : ' ▼';
      b.append(arrow);
      if (serverSide()) void load(0);
      else fill();
    });
    thead.append(th);
  }
  fill();
  const footer = () => {
    table.tFoot?.remove();
    if (!visible.some((c) => c.total)) return;
    const tf = table.createTFoot().insertRow();
    tf.className = 'totals';
    visible.forEach((c, i) => {
      const td = tf.insertCell();
      if (c.total) {
        const sum = state.totals?.[c.name];
        const t = serverSide() ? (sum ?? null) : totalOf(state.rows, c.name);
        // rows without a value (not synced, unknown, or not applicable): the sum covers only the
        // others, and says how many it leaves out
        const left = serverSide()
          ? (state.totalsBlank?.[c.name] ?? 0)
          : state.rows.filter((r) => r[c.name] === null || r[c.name] === undefined).length;
        td.textContent =
          t === null
            ? 'unknown'
            : left > 0
              ? `${cellText(c, t)} (${NUMBER.format(left)} blank)`
              : cellText(c, t);
        if (t !== null && left > 0)
          td.title = `The sum of the rows with a value; ${left} row${left === 1 ? ' has' : 's have'} none (not synced, unknown or not applicable) and ${left === 1 ? 'is' : 'are'} not in it`;
        td.className = 'num';
        td.dataset.col = c.name;
        td.dataset.value = t === null ? '' : String(t);
      } else if (i === 0)
        td.textContent = `Total (${NUMBER.format(state.total)} row${state.total === 1 ? '' : 's'})`;
    });
  };
  footer();
  const pagerText = () => {
    const first = state.offset + 1;
    const last = state.offset + state.rows.length;
    status.textContent = `Rows ${NUMBER.format(first)}–${NUMBER.format(last)} of ${NUMBER.format(state.total)}`;
    prev.disabled = state.offset <= 0;
    next.disabled = last >= state.total;
  };
  const prev = document.createElement('button');
  prev.type = 'button';
  prev.textContent = '‹ Previous';
  prev.className = 'prev';
  prev.addEventListener('click', () => void load(Math.max(0, state.offset - state.limit)));
  const next = document.createElement('button');
  next.type = 'button';
  next.textContent = 'Next ›';
  next.className = 'next';
  next.addEventListener('click', () => void load(state.offset + state.limit));
  const sizeLabel = document.createElement('label');
  sizeLabel.textContent = 'Rows per page ';
  const size = document.createElement('select');
  size.className = 'page-size';
  for (const n of new Set([...PAGE_SIZES, state.limit].sort((a, b) => a - b))) {
    const o = document.createElement('option');
    o.value = String(n);
    o.textContent = NUMBER.format(n);
    size.append(o);
  }
  size.value = String(state.limit);
  size.addEventListener('change', () => {
    state.limit = Number(size.value);
    void load(0);
  });
  sizeLabel.append(size);
  const box = scrollBox(table, opts.name ?? 'Table');
  if (serverSide()) {
    controls.append(status, prev, next, sizeLabel);
    pagerText();
    container.append(controls, box);
  } else {
    const note = pageNote(rows.length, opts.total);
    if (note) container.append(note);
    container.append(box);
  }
}
