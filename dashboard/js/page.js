// The frame of every page: navigation, the filter bar and report sections (chart + table + CSV
// link), all driven by the same filter. A section's chart, table and download link read the same
// report (the same query file on the server).
import { api, qs, wireDownload } from './api.js';
import { setupFilters } from './filters.js';
import { renderTable } from './table.js';

const PAGES = [
  ['index.html', 'Overview'],
  ['mileage.html', 'Mileage'],
  ['fuel.html', 'Fuel'],
  ['tolls.html', 'Tolls'],
  ['carpool.html', 'Carpool'],
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

/** Groups rows by `x` and sums (or counts) each y column: the chart's data, straight from the rows. */
export function chartData(rows, spec) {
  const labels = [];
  const sums = new Map();
  for (const r of rows) {
    const key = String(r[spec.x] ?? '(none)');
    if (!sums.has(key)) {
      labels.push(key);
      sums.set(
        key,
        spec.y.map(() => 0),
      );
    }
    const acc = sums.get(key);
    spec.y.forEach((col, i) => {
      acc[i] += spec.agg === 'count' ? 1 : typeof r[col] === 'number' ? r[col] : 0;
    });
  }
  if (spec.sortX) labels.sort();
  return {
    labels,
    datasets: spec.y.map((col, i) => ({
      label: spec.labels?.[i] ?? col,
      data: labels.map((l) => Math.round(sums.get(l)[i] * 1000) / 1000),
      backgroundColor:
        spec.type === 'doughnut' ? labels.map((_, j) => COLOURS[j % COLOURS.length]) : COLOURS[i],
      borderColor: COLOURS[i],
      ...(spec.axes?.[i] ? { yAxisID: spec.axes[i] } : {}),
    })),
  };
}

function drawChart(canvas, spec, rows) {
  const data = chartData(rows, spec);
  const existing = Chart.getChart(canvas);
  if (existing) {
    existing.data = data;
    existing.update();
    return;
  }
  const scales =
    spec.type === 'doughnut'
      ? {}
      : {
          y: { beginAtZero: true, ...(spec.percent ? { ticks: { format: { style: 'percent' } } } : {}) },
          ...(spec.axes?.includes('y2')
            ? { y2: { beginAtZero: true, position: 'right', grid: { drawOnChartArea: false } } }
            : {}),
        };
  new Chart(canvas, {
    type: spec.type ?? 'bar',
    data,
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales,
      plugins: { legend: { position: 'bottom' } },
    },
  });
}

function sectionEl(s) {
  const sec = document.createElement('section');
  sec.id = `sec-${s.id}`;
  sec.className = 'card';
  const h = document.createElement('h2');
  h.textContent = s.title;
  const a = document.createElement('a');
  a.className = 'csv';
  a.id = `csv-${s.id}`;
  a.textContent = 'Download CSV';
  wireDownload(a);
  h.append(' ', a);
  sec.append(h);
  if (s.note) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = s.note;
    sec.append(p);
  }
  if (s.chart) {
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
  return { sec, link: a, canvas: sec.querySelector('canvas'), tableDiv: t };
}

/** A banner while the API's release notes flag a change to an endpoint the sync uses. */
async function showChangesBanner(main) {
  const { flagged } = await api('/api/changes');
  if (!flagged || flagged.length === 0) return;
  const box = document.createElement('aside');
  box.id = 'api-changes';
  box.className = 'banner';
  const head = document.createElement('strong');
  head.textContent = `API change notice: ${flagged.length} release note(s) change or deprecate endpoints this sync uses.`;
  const list = document.createElement('ul');
  for (const f of flagged) {
    const li = document.createElement('li');
    li.textContent = `${f.version} (${f.kind}): ${(f.sync_endpoints ?? f.syncEndpoints ?? f.endpoints ?? []).join(', ')} — ${String(f.text).split('\n')[0]}`;
    list.append(li);
  }
  const ack = document.createElement('button');
  ack.type = 'button';
  ack.textContent = 'Acknowledge';
  ack.addEventListener('click', async () => {
    await api('/api/changes/ack', { method: 'POST' });
    box.remove();
  });
  box.append(head, list, ack);
  main.prepend(box);
}

/**
 * Starts a page: `title`, `sections` (id, title, report, extra params, chart spec, table opts,
 * render(result, parts) for custom bodies) and an optional `header(status, filter)` hook.
 */
export async function startPage({ title, sections, header }) {
  document.title = `fleetsync · ${title}`;
  const main = document.querySelector('main');
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
  const headerBox = document.createElement('div');
  headerBox.id = 'page-header';
  main.before(top);
  main.append(error, headerBox);
  const parts = sections.map((s) => ({ s, ...sectionEl(s) }));
  for (const p of parts) main.append(p.sec);

  const status = await api('/api/status');
  showChangesBanner(main).catch(() => {});
  let generation = 0;
  await setupFilters(form, status, async (filter) => {
    const mine = ++generation;
    error.hidden = true;
    document.body.dataset.loading = 'true';
    try {
      if (header) await header(headerBox, status, filter);
      await Promise.all(
        parts.map(async ({ s, link, canvas, tableDiv }) => {
          const q = qs({ ...filter, ...(s.extra ? s.extra() : {}) });
          link.href = `/api/reports/${s.report}.csv?${q}`;
          link.setAttribute('download', `${s.report}.csv`);
          const result = await api(`/api/reports/${s.report}?${q}`);
          if (mine !== generation) return;
          if (s.render) s.render(result, { tableDiv, canvas });
          else {
            if (s.chart && canvas)
              drawChart(canvas, s.chart, s.chart.rows ? s.chart.rows(result.rows) : result.rows);
            if (s.table !== false) renderTable(tableDiv, result.columns, result.rows, s.tableOpts ?? {});
          }
        }),
      );
    } catch (e) {
      error.textContent = `Could not load: ${e.message}`;
      error.hidden = false;
    } finally {
      if (mine === generation) document.body.dataset.loading = 'false';
    }
  });
}
