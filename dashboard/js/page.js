// The frame of every page: navigation, the filter bar and report sections (chart + table + CSV
// link), all driven by the same filter. A section's chart, table and download link read the same
// report (the same query file on the server).
import {
  ackChanges,
  getAllRows,
  chooseAccount,
  chosenAccount,
  getAccounts,
  getChanges,
  getReport,
  getStatus,
  qs,
  wireDownload,
} from './api.js';
import { setupFilters } from './filters.js';
import { cellText, renderTable } from './table.js';
/** @typedef {import('./types.d.ts').AnyRow} AnyRow */
/** @typedef {import('./types.d.ts').ChartSpec} ChartSpec */
/** @typedef {import('./types.d.ts').ReportAnswer} ReportAnswer */
/** @typedef {import('./types.d.ts').GenericSection} Section */
/** @typedef {import('./types.d.ts').StatusAnswer} StatusAnswer */

/** @type {[string, string][]} */
const PAGES = [
  ['index.html', 'Overview'],
  ['mileage.html', 'Mileage'],
  ['fuel.html', 'Fuel'],
  ['tolls.html', 'Tolls'],
  ['carpool.html', 'Carpool'],
  ['utilisation.html', 'Utilisation'],
  ['sites.html', 'Sites'],
  ['drivers.html', 'Drivers'],
  ['logbook.html', 'Logbook'],
  ['scores.html', 'Scores'],
  ['service.html', 'Service'],
  ['quality.html', 'Data quality'],
  ['runs.html', 'Sync runs'],
];
const COLOURS = ['#2563eb', '#f97316', '#16a34a', '#dc2626', '#9333ea', '#0891b2', '#ca8a04', '#db2777'];

function nav() {
  const n = document.createElement('nav');
  const here = location.pathname.split('/').pop() || 'index.html';
  for (const [href, label] of PAGES) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = label;
    if (href === here) a.setAttribute('aria-current', 'page');
    n.append(a);
  }
  return n;
}

/**
 * The account selector, shown when the server holds more than one account (a database with
 * several, or a lake): the choice is kept for this tab and the page reloads for it.
 * @param {HTMLElement} top
 */
async function accountSelector(top) {
  const { accounts, current } = await getAccounts();
  if (!accounts.includes(chosenAccount()))
    chooseAccount(accounts.includes(current) ? '' : (accounts[0] ?? ''));
  if (accounts.length < 2) return;
  const label = document.createElement('label');
  label.className = 'account';
  label.textContent = 'Account ';
  const select = document.createElement('select');
  select.id = 'account';
  for (const a of accounts) {
    const o = document.createElement('option');
    o.value = a;
    o.textContent = a;
    select.append(o);
  }
  select.value = chosenAccount() || current;
  select.addEventListener('change', () => {
    chooseAccount(select.value);
    location.reload();
  });
  label.append(select);
  top.prepend(label);
}

/**
 * Groups rows by `x` and sums (or counts) each y column: the chart's data, straight from the rows.
 * Coverage (issues 12 and 25), the same on every chart: a label all of whose rows were never
 * synced is a hatched gap ("not synced"), not a zero bar; a label partly synced (a row partial, or
 * some rows not synced) is drawn lighter and hatched in its dataset's colour, with its own legend
 * entry ("partly synced") and its coverage in the tooltip ("partly synced: 6.5 % of days"); a
 * partly synced label with no figure yet (a day still open for late data) is a lighter band
 * ("open for late data").
 * @param {readonly AnyRow[]} rows
 * @param {ChartSpec} spec
 */
export function chartData(rows, spec) {
  /** @type {string[]} */
  const labels = [];
  /** @type {Map<string, number[]>} */
  const sums = new Map();
  /** @type {Map<string, boolean>} */
  const unsynced = new Map();
  /** @type {Map<string, { partial: boolean, shares: number[], known: boolean }>} */
  const cover = new Map();
  for (const r of rows) {
    const key = String(r[spec.x] ?? '(none)');
    unsynced.set(key, (unsynced.get(key) ?? true) && r.coverage === 'not_synced');
    const c = cover.get(key) ?? { partial: false, shares: [], known: false };
    if (r.coverage === 'partial' || r.coverage === 'not_synced') c.partial = true;
    if (typeof r.covered_share === 'number') c.shares.push(r.covered_share);
    if (spec.y.some((col) => typeof r[col] === 'number')) c.known = true;
    cover.set(key, c);
    if (!sums.has(key)) {
      labels.push(key);
      sums.set(
        key,
        spec.y.map(() => 0),
      );
    }
    const acc = /** @type {number[]} */ (sums.get(key));
    spec.y.forEach((col, i) => {
      const v = r[col];
      acc[i] = (acc[i] ?? 0) + (spec.agg === 'count' ? 1 : typeof v === 'number' ? v : 0);
    });
  }
  if (spec.sortX) labels.sort();
  const gaps = labels.filter((l) => unsynced.get(l));
  const doughnut = spec.type === 'doughnut';
  const partial = doughnut ? [] : labels.filter((l) => !unsynced.get(l) && cover.get(l)?.partial);
  // a partly synced label without any figure (open for late data): a band, like a gap
  const open = partial.filter((l) => !cover.get(l)?.known && spec.agg !== 'count');
  /** @type {Record<string, string>} */
  const notes = {};
  for (const l of gaps) notes[l] = NOT_SYNCED;
  for (const l of partial) {
    const shares = cover.get(l)?.shares ?? [];
    notes[l] = open.includes(l)
      ? `${OPEN_LATE}: no figure yet`
      : shares.length
        ? `${PARTLY_SYNCED}: ${percentText(shares.reduce((a, b) => a + b, 0) / shares.length)} of days`
        : PARTLY_SYNCED;
  }
  const datasets = spec.y.map((col, i) => ({
    label: spec.labels?.[i] ?? col,
    data: labels.map((l) =>
      unsynced.get(l) || open.includes(l) ? null : Math.round((sums.get(l)?.[i] ?? 0) * 1000) / 1000,
    ),
    backgroundColor: doughnut
      ? labels.map((_, j) => COLOURS[j % COLOURS.length])
      : partial.length
        ? labels.map((l) => (partial.includes(l) ? lighter(COLOURS[i] ?? '#2563eb') : COLOURS[i]))
        : COLOURS[i],
    borderColor: COLOURS[i],
    ...(spec.axes?.[i] ? { yAxisID: spec.axes[i] } : {}),
  }));
  if ((!gaps.length && !partial.length) || doughnut) return { labels, datasets, gaps, partial, notes };
  // A hatched band over each unsynced label (and a lighter one over each open label), as tall as
  // the first axis' highest bar, with its own legend entry; an empty dataset gives the partly
  // synced bars theirs.
  const top = Math.max(
    1,
    ...datasets.flatMap((d, i) => ((spec.axes?.[i] ?? 'y') === 'y' ? d.data : [])).map((v) => v ?? 0),
  );
  /** @param {string} label @param {string[]} which @param {CanvasPattern | string} fill */
  const band = (label, which, fill) => ({
    label,
    data: labels.map((l) => (which.includes(l) ? top : null)),
    backgroundColor: fill,
    borderColor: 'rgba(120, 120, 120, 0.8)',
    grouped: false,
    barPercentage: 1,
    categoryPercentage: 1,
    order: 1,
    ...(spec.axes ? { yAxisID: 'y' } : {}),
  });
  return {
    labels,
    gaps,
    partial,
    notes,
    datasets: [
      ...datasets,
      ...(gaps.length ? [band(NOT_SYNCED, gaps, hatch())] : []),
      ...(open.length ? [band(OPEN_LATE, open, lighter('#9ca3af'))] : []),
      ...(partial.length > open.length
        ? [
            {
              label: PARTLY_SYNCED,
              data: labels.map(() => null),
              backgroundColor: lighter(COLOURS[0] ?? '#2563eb'),
            },
          ]
        : []),
    ],
  };
}

/** The legend entry of a chart's unsynced periods. */
export const NOT_SYNCED = 'not synced';
/** The legend entry of a chart's partly synced periods (issue 25). */
export const PARTLY_SYNCED = 'partly synced';
/** The legend entry of periods still open for late data, not yet with a figure. */
export const OPEN_LATE = 'open for late data';
/** What a figure reads when the vehicle / department filter matches no vehicle (issue 25). */
export const NO_VEHICLE = 'no vehicle matches';

/** @param {number} share 0–1 */
const percentText = (share) => `${(Math.round(share * 1000) / 10).toLocaleString('en-US')} %`;

/** A grey diagonal hatch (falls back to plain grey where a canvas pattern is not available). */
function hatch() {
  const c = document.createElement('canvas');
  c.width = c.height = 8;
  const g = c.getContext('2d');
  if (!g) return 'rgba(150, 150, 150, 0.35)';
  g.fillStyle = 'rgba(150, 150, 150, 0.15)';
  g.fillRect(0, 0, 8, 8);
  g.strokeStyle = 'rgba(110, 110, 110, 0.7)';
  g.beginPath();
  g.moveTo(0, 8);
  g.lineTo(8, 0);
  g.stroke();
  return g.createPattern(c, 'repeat') ?? 'rgba(150, 150, 150, 0.35)';
}

/**
 * A partly synced bar's fill: the colour at a third of its strength with diagonal stripes of it
 * (a plain lighter colour where a canvas pattern is not available).
 * @param {string} colour '#rrggbb'
 */
function lighter(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  const soft = `rgba(${r}, ${g}, ${b}, 0.3)`;
  const c = document.createElement('canvas');
  c.width = c.height = 8;
  const x = c.getContext('2d');
  if (!x) return soft;
  x.fillStyle = soft;
  x.fillRect(0, 0, 8, 8);
  x.strokeStyle = `rgba(${r}, ${g}, ${b}, 0.85)`;
  x.lineWidth = 2;
  x.beginPath();
  x.moveTo(0, 8);
  x.lineTo(8, 0);
  x.stroke();
  const p = x.createPattern(c, 'repeat');
  if (!p) return soft;
  // the pattern keeps its colour's name, for a test or a reader of the chart's data
  return Object.assign(p, { partlySynced: colour });
}

/**
 * @param {HTMLCanvasElement} canvas
 * @param {ChartSpec} spec
 * @param {readonly AnyRow[]} rows
 * @param {readonly import('./types.d.ts').ColumnInfo[]} [columns] the report's columns: the x
 *   values are shown as the tables show them (codes by their labels, "Sep 2026" for a month);
 *   the chart's data keeps the values themselves
 */
function drawChart(canvas, spec, rows, columns = []) {
  const { gaps, partial, notes, ...data } = chartData(rows, spec);
  const xCol = columns.find((c) => c.name === spec.x);
  /** @param {unknown} v */
  const shown = (v) => (xCol && typeof v === 'string' && v !== '(none)' ? cellText(xCol, v) || v : String(v));
  // The unsynced periods in the DOM too (for a screen reader, and to find them).
  canvas.dataset.notSynced = gaps.join(' ');
  canvas.dataset.partlySynced = partial.join(' ');
  canvas.setAttribute(
    'aria-label',
    [
      gaps.length ? `${NOT_SYNCED}: ${gaps.join(', ')}` : '',
      partial.length ? `${PARTLY_SYNCED}: ${partial.map((l) => `${shown(l)} (${notes[l]})`).join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('; '),
  );
  // a ranking gets the height its bars need, each label readable
  const box = canvas.parentElement;
  if (spec.horizontal && box) box.style.height = `${Math.max(280, data.labels.length * 20 + 90)}px`;
  const existing = Chart.getChart(canvas);
  if (existing) {
    existing.data = data;
    /** @type {any} */ (existing).$coverageNotes = notes;
    existing.update();
    return;
  }
  /** @type {Record<string, object | undefined>} */
  const scales =
    spec.type === 'doughnut'
      ? {}
      : {
          y: {
            beginAtZero: true,
            ...(spec.percent ? { ticks: { format: { style: 'percent' } } } : {}),
            ...(spec.yTitle ? { title: { display: true, text: spec.yTitle } } : {}),
          },
          ...(spec.axes?.includes('y2')
            ? {
                y2: {
                  beginAtZero: true,
                  position: 'right',
                  grid: { drawOnChartArea: false },
                  ...(spec.y2Title ? { title: { display: true, text: spec.y2Title } } : {}),
                },
              }
            : {}),
        };
  if (spec.type !== 'doughnut') {
    // the category axis: every label of a ranking (a skipped one leaves a bar nobody can name)
    /** @type {{ ticks: object }} */
    const category = {
      ticks: {
        ...(spec.horizontal ? { autoSkip: false } : {}),
        /** @this {{ getLabelForValue(v: number): unknown }} @param {number} value */
        callback(value) {
          return shown(this.getLabelForValue(value));
        },
      },
    };
    if (spec.horizontal) {
      scales.x = scales.y;
      scales.y = category;
    } else scales.x = category;
  }
  const chart = new Chart(canvas, {
    type: spec.type ?? 'bar',
    data,
    options: {
      ...(spec.horizontal ? { indexAxis: 'y' } : {}),
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales,
      plugins: {
        legend: {
          position: 'bottom',
          ...(spec.type === 'doughnut'
            ? {
                labels: {
                  /** @param {any} chart */
                  generateLabels: (chart) =>
                    Chart.overrides.doughnut.plugins.legend.labels
                      .generateLabels(chart)
                      .map((/** @type {{ text: string }} */ item) => ({ ...item, text: shown(item.text) })),
                },
              }
            : {
                labels: {
                  // a dataset with partly synced bars keeps its own colour in the legend (its
                  // fill is per bar); the lighter hatch has its own entry, "partly synced"
                  /** @param {any} chart */
                  generateLabels: (chart) =>
                    Chart.defaults.plugins.legend.labels
                      .generateLabels(chart)
                      .map((/** @type {import('chart.js').LegendItem} */ item) => {
                        const ds = chart.data.datasets[item.datasetIndex ?? -1];
                        return Array.isArray(ds?.backgroundColor)
                          ? { ...item, fillStyle: ds.borderColor, strokeStyle: ds.borderColor }
                          : item;
                      }),
                },
              }),
        },
        tooltip: {
          callbacks: {
            /** @param {{ label: string }[]} items */
            title: (items) => items.map((i) => shown(i.label)),
            // a period's coverage when it is not complete: "partly synced: 6.5 % of days"
            /** @param {{ label: string, chart: any }[]} items */
            footer: (items) => {
              const label = items[0]?.label;
              const n = /** @type {Record<string, string>} */ (items[0]?.chart.$coverageNotes ?? {});
              return label !== undefined && n[label] ? n[label] : '';
            },
            ...(spec.type === 'doughnut'
              ? {
                  /** @param {{ label: string, formattedValue: string }} item */
                  label: (item) => `${shown(item.label)}: ${item.formattedValue}`,
                }
              : {}),
          },
        },
      },
    },
  });
  /** @type {any} */ (chart).$coverageNotes = notes;
}

/** @param {Section} s */
function sectionEl(s) {
  const sec = document.createElement('section');
  sec.id = `sec-${s.id}`;
  sec.className = 'card';
  const h = document.createElement('h2');
  const title = document.createElement('span');
  title.className = 'title';
  title.textContent = s.title;
  const a = document.createElement('a');
  a.className = 'csv';
  a.id = `csv-${s.id}`;
  a.textContent = 'Download CSV';
  wireDownload(a);
  const pq = document.createElement('a');
  pq.className = 'csv parquet';
  pq.id = `parquet-${s.id}`;
  pq.textContent = 'Parquet';
  wireDownload(pq);
  const xl = document.createElement('a');
  xl.className = 'csv xlsx';
  xl.id = `xlsx-${s.id}`;
  xl.textContent = 'XLSX';
  wireDownload(xl);
  h.append(title, ' ', a, ' ', xl, ' ', pq);
  sec.append(h);
  if (s.note) {
    const p = document.createElement('p');
    p.className = 'note';
    p.id = `note-${s.id}`;
    // a note that states the answer's settings is written when the answer arrives
    if (typeof s.note === 'string') p.textContent = s.note;
    sec.append(p);
  }
  if (s.chart) {
    if (s.chart.caption) {
      const cap = document.createElement('p');
      cap.className = 'chart-caption';
      cap.id = `caption-${s.id}`;
      sec.append(cap);
    }
    const wrap = document.createElement('div');
    wrap.className = 'chart';
    const c = document.createElement('canvas');
    c.id = `chart-${s.id}`;
    wrap.append(c);
    sec.append(wrap);
  }
  const t = document.createElement('div');
  t.className = 'table-wrap';
  t.id = `table-${s.id}`;
  if (s.table !== false) sec.append(t);
  return { sec, title, link: a, xlsx: xl, parquet: pq, canvas: sec.querySelector('canvas'), tableDiv: t };
}

/**
 * Why a table is empty, in words: never synced, the period lies beyond what is synced, or the
 * filter simply matches nothing.
 * @param {StatusAnswer} status
 * @param {import('./types.d.ts').ReportAnswer<unknown>} result
 */
export function emptyMessage(status, result) {
  if (!status.last_run)
    return 'No data yet: this database has never been synced. Run `fleetsync sync`, or Sync now on the Sync runs page.';
  const src = result.complete_through_text ? result : status;
  const day = src.complete_through_day;
  const from = result.params.from;
  if (!day) return 'No rows: the sync has not completed any day yet (see Data quality and Sync runs).';
  // the day said once, in words ("complete through 11 Apr 2026 (local)")
  const through = src.complete_through_text;
  if (from && day < from) return `Not synced for this period: data is ${through}.`;
  return `No rows for this filter (data is ${through}).`;
}

/**
 * What a report cannot show because the account may not read (403) or does not have (404) an
 * endpoint its data come from: named above its table, in place of figures that would read as 0.
 * @param {import('./types.d.ts').ReportAnswer<unknown>} result
 */
export function unavailableMessage(result) {
  const u = result.unavailable ?? [];
  if (!u.length) return null;
  const what = u.map(
    (e) => `${e.endpoint} is ${e.text} (since ${e.since.slice(0, 10)}; ${e.streams.join(', ')} not synced)`,
  );
  // Each endpoint reads by its state (403: not permitted for these credentials; 404: not
  // available on this account): the lead names neither.
  return `Not available: ${what.join('; ')}. Every sync asks once and fills it in when the API answers.`;
}

/**
 * Shows (or hides) a section's "not available for these credentials" note.
 * @param {HTMLElement} sec
 * @param {import('./types.d.ts').ReportAnswer<unknown>} result
 */
function showUnavailable(sec, result) {
  const text = unavailableMessage(result);
  let p = /** @type {HTMLElement | null} */ (sec.querySelector('p.unavailable'));
  if (!text) {
    if (p) p.hidden = true;
    return;
  }
  if (!p) {
    p = document.createElement('p');
    p.className = 'note unavailable';
    sec.querySelector('h2')?.after(p);
  }
  p.hidden = false;
  p.textContent = text;
}

/**
 * The note of a range that reaches past today: up to when it holds data (hidden otherwise).
 * @param {HTMLElement} el
 * @param {({ range_note?: string | null } | undefined)[]} results
 */
function showRangeNote(el, results) {
  const note = results.find((r) => r?.range_note)?.range_note;
  el.hidden = !note;
  el.textContent = note ? `Note: ${note}.` : '';
}

/**
 * A banner while the API's release notes flag a change to an endpoint the sync uses.
 * @param {HTMLElement} main
 */
async function showChangesBanner(main) {
  const { flagged } = await getChanges();
  if (flagged.length === 0) return;
  const box = document.createElement('aside');
  box.id = 'api-changes';
  box.className = 'banner';
  const head = document.createElement('strong');
  head.textContent = `API change notice: ${flagged.length} release note(s) change or deprecate endpoints this sync uses.`;
  const list = document.createElement('ul');
  for (const f of flagged) {
    const li = document.createElement('li');
    li.textContent = `${f.version} (${f.kind}): ${f.syncEndpoints.join(', ')} — ${f.text.split('\n')[0]}`;
    list.append(li);
  }
  const ack = document.createElement('button');
  ack.type = 'button';
  ack.textContent = 'Acknowledge';
  ack.addEventListener('click', async () => {
    await ackChanges();
    box.remove();
  });
  box.append(head, list, ack);
  main.prepend(box);
}

/** What to do about a run that was not ok: the runs page's summary and the banner say it. */
export const WHAT_TO_DO =
  'Fix what the reason names, then Sync now on the Sync runs page (or wait for the next scheduled run): a run fills the gaps the last one left';

/**
 * What `fleetsync status` says is wrong (its verdict's lines: the last run failed or was partial
 * and why, failed snapshots and windows); none when all is well.
 * @param {StatusAnswer} status
 * @returns {string[]}
 */
export function runProblems(status) {
  return status.verdict.exit_code === 0 ? [] : status.verdict.problems;
}

/**
 * A banner on every page while the last run failed or was partial (issue 25), or the database
 * file could not take its data (a failed checkpoint, exit 5, until one succeeds): the status
 * verdict's words, what to do, and a link to the runs page. From GET /api/status, so any outcome
 * the status reports (also one recorded outside the runs table) shows here.
 * @param {HTMLElement} main
 * @param {StatusAnswer} status
 */
function showRunBanner(main, status) {
  const problems = runProblems(status);
  if (problems.length === 0) return;
  const box = document.createElement('aside');
  box.id = 'run-banner';
  box.className = 'banner banner-run';
  const head = document.createElement('strong');
  head.textContent =
    status.verdict.exit_code === 1
      ? 'The last sync failed.'
      : status.verdict.exit_code === 5
        ? 'The database file could not take the last sync’s data (they are kept in its write-ahead log).'
        : 'The last sync was partial.';
  const list = document.createElement('ul');
  for (const p of problems.slice(0, 3)) {
    const li = document.createElement('li');
    li.textContent = p;
    list.append(li);
  }
  if (problems.length > 3) {
    const li = document.createElement('li');
    li.textContent = `… and ${problems.length - 3} more (fleetsync status lists them all)`;
    list.append(li);
  }
  const todo = document.createElement('p');
  todo.textContent = `${WHAT_TO_DO}. `;
  const a = document.createElement('a');
  a.href = hrefWith('runs.html', {});
  a.textContent = 'Sync runs →';
  todo.append(a);
  box.append(head, list, todo);
  main.prepend(box);
}

/**
 * `serve --lake`: the accounts whose last worker job failed, that never published, or whose last
 * publish is stale — a failed job publishes nothing, so the pages' figures alone would not say so.
 * @param {HTMLElement} main
 * @param {StatusAnswer} status
 */
function showJobsBanner(main, status) {
  const problems = status.jobs?.problems ?? [];
  if (problems.length === 0) return;
  const box = document.createElement('aside');
  box.id = 'worker-jobs';
  box.className = 'banner';
  box.setAttribute('role', 'alert');
  const head = document.createElement('strong');
  head.textContent = `Workers: ${problems.length} problem(s) with the accounts of this lake.`;
  const list = document.createElement('ul');
  for (const p of problems) {
    const li = document.createElement('li');
    li.textContent = p;
    list.append(li);
  }
  box.append(head, list);
  main.prepend(box);
}

/**
 * Starts a page: `title`, `sections` and an optional `header(box, status, filter, drill)` hook.
 * A section has id, title, report, and optionally: note, chart spec, table (false: none),
 * tableOpts (or tableOpts(filter, drill)), extra() (more query parameters), when(filter, drill)
 * (shown only then), heading(filter, drill) (a title that follows the filter), query(filter,
 * drill) (the parameters instead of the filter: a drill-down), render(result, parts).
 * @param {import('./types.d.ts').PageSpec} page
 */
export async function startPage({ title, sections, header }) {
  document.title = `fleetsync · ${title}`;
  const main = /** @type {HTMLElement} */ (document.querySelector('main'));
  const top = document.createElement('header');
  const h1 = document.createElement('h1');
  h1.textContent = title;
  const form = document.createElement('form');
  form.id = 'filters';
  form.addEventListener('submit', (e) => e.preventDefault());
  top.append(nav(), h1, form);
  const error = document.createElement('p');
  error.id = 'error';
  error.className = 'error';
  error.hidden = true;
  const rangeNote = document.createElement('p');
  rangeNote.id = 'range-note';
  rangeNote.className = 'note';
  rangeNote.hidden = true;
  const headerBox = document.createElement('div');
  headerBox.id = 'page-header';
  main.before(top);
  main.append(error, rangeNote, headerBox);
  // Each section reads its own report; here they are handled alike, whatever their rows.
  const parts = sections.map((s) => ({ s: /** @type {Section} */ (s), ...sectionEl(s) }));
  for (const p of parts) main.append(p.sec);

  await accountSelector(top);
  const status = await getStatus();
  showJobsBanner(main, status);
  showChangesBanner(main).catch(() => {});
  showRunBanner(main, status);
  let generation = 0;
  /** @type {(() => void) | null} */
  let again = null;
  const retry = document.createElement('button');
  retry.type = 'button';
  retry.className = 'retry';
  retry.textContent = 'Retry';
  retry.addEventListener('click', () => again?.());
  await setupFilters(form, status, async function load(filter, drill) {
    const mine = ++generation;
    again = () => void load(filter, drill);
    error.hidden = true;
    document.body.dataset.loading = 'true';
    /** @type {string[]} */
    const failed = [];
    /** @type {unknown} */
    let firstError;
    try {
      if (header) await header(headerBox, status, filter, drill);
      const results = await Promise.all(
        parts.map(async ({ s, sec, title: titleEl, link, xlsx, parquet, canvas, tableDiv }) => {
          const on = s.when ? s.when(filter, drill) : true;
          sec.hidden = !on;
          if (!on) return;
          if (s.heading) titleEl.textContent = s.heading(filter, drill);
          const params = s.query ? s.query(filter, drill) : { ...filter, ...(s.extra ? s.extra() : {}) };
          const q = qs(params);
          link.href = `/api/reports/${s.report}.csv?${q}`;
          link.setAttribute('download', `${s.report}.csv`);
          xlsx.href = `/api/reports/${s.report}.xlsx?${q}`;
          xlsx.setAttribute('download', `${s.report}.xlsx`);
          parquet.href = `/api/reports/${s.report}.parquet?${q}`;
          parquet.setAttribute('download', `${s.report}.parquet`);
          sec.setAttribute('aria-busy', 'true');
          sec.classList.add('loading');
          try {
            const result = await getReport(s.report, q);
            if (mine !== generation) return result;
            showUnavailable(sec, result);
            const note = sec.querySelector(`#note-${s.id}`);
            if (note && typeof s.note === 'function') note.textContent = s.note(result);
            if (s.render)
              await s.render(result, {
                tableDiv,
                canvas,
                status,
                // every row, page after page, for a view that must be whole (the coverage calendar)
                all: () => getAllRows(s.report, params, result),
                current: () => mine === generation,
              });
            else {
              if (s.chart && canvas) {
                // The chart sums every row of the report, not only the table's page.
                const rows = await getAllRows(s.report, params, result);
                if (mine !== generation) return result;
                if (canvas.parentElement) canvas.parentElement.hidden = false;
                const shown = s.chart.rows ? s.chart.rows(rows) : rows;
                drawChart(canvas, s.chart, shown, result.columns);
                const cap = sec.querySelector('p.chart-caption');
                if (cap && s.chart.caption) cap.textContent = s.chart.caption(shown);
                chartTable(sec, s, result.columns, rows);
              }
              const opts =
                typeof s.tableOpts === 'function' ? s.tableOpts(filter, drill) : (s.tableOpts ?? {});
              if (s.table !== false)
                renderTable(tableDiv, result.columns, result.rows, {
                  // The note above the table says why (showUnavailable): not said twice.
                  empty: unavailableMessage(result)
                    ? 'No rows: see the note above.'
                    : emptyMessage(status, result),
                  // A paged report: say how many rows there are, totals over all of them (SQL).
                  total: result.total,
                  totals: result.totals,
                  totalsBlank: result.totals_blank,
                  name: titleEl.textContent ?? s.title,
                  ...(result.limit !== undefined
                    ? {
                        pager: {
                          offset: result.offset ?? 0,
                          limit: result.limit,
                          load: (page) => getReport(s.report, qs({ ...params, ...page })),
                        },
                      }
                    : {}),
                  ...opts,
                });
            }
            return result;
          } catch (e) {
            if (mine !== generation) return;
            // The previous period's numbers must not stay as if they were the answer.
            failed.push(titleEl.textContent ?? s.title);
            showFailure(tableDiv, canvas, `${titleEl.textContent ?? s.title}`, e, again);
            firstError ??= e;
            return undefined;
          } finally {
            if (mine === generation) {
              sec.removeAttribute('aria-busy');
              sec.classList.remove('loading');
            }
          }
        }),
      );
      if (mine === generation) showRangeNote(rangeNote, results);
      if (firstError !== undefined) throw firstError;
    } catch (e) {
      if (mine !== generation) return;
      // The page's header failed before its sections loaded: none of them shows an earlier answer.
      if (!failed.length)
        for (const p of parts) if (!p.sec.hidden) showFailure(p.tableDiv, p.canvas, p.s.title, e, again);
      // in the page's order, not the order the answers came
      const names = parts.map((p) => p.title.textContent ?? p.s.title).filter((n) => failed.includes(n));
      const what = names.length ? names.join(', ') : 'this page';
      error.textContent = `Could not load ${what}: ${e instanceof Error ? e.message : String(e)}. `;
      error.append(retry);
      error.hidden = false;
    } finally {
      if (mine === generation) document.body.dataset.loading = 'false';
    }
  });
}

/**
 * Replaces a section's table and chart (an earlier answer) with what failed and a retry button.
 * @param {HTMLElement} tableDiv
 * @param {HTMLCanvasElement | null} canvas
 * @param {string} what
 * @param {unknown} e
 * @param {(() => void) | null} again
 */
function showFailure(tableDiv, canvas, what, e, again) {
  if (canvas) {
    Chart.getChart(canvas)?.destroy();
    if (canvas.parentElement) canvas.parentElement.hidden = true;
  }
  canvas?.closest('section')?.querySelector('details.chart-data')?.remove();
  const box = document.createElement('div');
  box.className = 'failed';
  box.setAttribute('role', 'alert');
  const msg = document.createElement('p');
  msg.textContent = `Could not load ${what}: ${e instanceof Error ? e.message : String(e)}.`;
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = 'Retry';
  b.addEventListener('click', () => again?.());
  box.append(msg, b);
  tableDiv.replaceChildren(box);
}

/**
 * The chart's numbers as a table under it (a text alternative people can open), read from the
 * same rows the chart sums, with the report's column labels.
 * @param {HTMLElement} sec
 * @param {Section} s
 * @param {readonly import('./types.d.ts').ColumnInfo[]} columns
 * @param {readonly AnyRow[]} rows
 */
function chartTable(sec, s, columns, rows) {
  const spec = /** @type {ChartSpec} */ (s.chart);
  const data = chartData(spec.rows ? spec.rows([...rows]) : rows, spec);
  const byName = new Map(columns.map((c) => [c.name, c]));
  const xCol = byName.get(spec.x) ?? { name: spec.x, kind: 'text', total: false };
  let d = /** @type {HTMLDetailsElement | null} */ (sec.querySelector('details.chart-data'));
  if (!d) {
    d = document.createElement('details');
    d.className = 'chart-data';
    const sum = document.createElement('summary');
    sum.textContent = 'Chart data as a table';
    d.append(sum);
    sec.querySelector('.chart')?.after(d);
  }
  const body = document.createElement('div');
  /** @type {import('./types.d.ts').ColumnInfo[]} */
  const cols = [
    /** @type {import('./types.d.ts').ColumnInfo} */ (xCol),
    ...spec.y.map((y, i) => {
      const c = byName.get(y);
      const label = spec.labels?.[i] ?? c?.label ?? y;
      return /** @type {import('./types.d.ts').ColumnInfo} */ ({
        ...(c ?? { name: y, kind: 'number', total: false }),
        name: `y${i}`,
        label: label.charAt(0).toUpperCase() + label.slice(1),
        total: false,
      });
    }),
  ];
  const tableRows = data.labels.map((l, j) => {
    /** @type {AnyRow} */
    const r = { [xCol.name]: l === '(none)' ? null : l };
    data.datasets.forEach((ds, i) => (r[`y${i}`] = ds.data[j] ?? null));
    return r;
  });
  renderTable(body, cols, tableRows, { name: `${s.title}: chart data`, hide: [] });
  d.replaceChildren(/** @type {HTMLElement} */ (d.querySelector('summary')), body);
}

/**
 * The drill-down to the trips behind a driver's month (scores.html): `driver` is the id, or '-' for
 * the trips without a driver (the "no driver recorded" row).
 * @param {import('./types.d.ts').AnyRow} r
 */
export function driverTripsHref(r) {
  return hrefWith('scores.html', {
    driver: r.driver_id === null ? '-' : String(r.driver_id),
    month: String(r.period),
  });
}

/**
 * A link to `page` with the current filter and `changes` applied (null/'' removes a key).
 * @param {string} page
 * @param {import('./types.d.ts').Query} changes
 */
export function hrefWith(page, changes) {
  const u = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes))
    if (v === null || v === undefined || v === '') u.delete(k);
    else u.set(k, String(v));
  return `${page}?${u}`;
}
