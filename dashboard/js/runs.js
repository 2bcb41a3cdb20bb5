// The Sync runs page: the scheduler's status, "Sync now", and the latest runs. The status polls
// GET /api/status (every 2 s while a run is going, every 20 s otherwise, never while the tab is
// hidden, never two polls at once), so a run started here, by the schedule or by another client
// shows as running and then with its outcome without a reload; the runs table reloads whenever
// the latest run changes.
import { postSync, getStatus } from './api.js';
import { runProblems, startPage, WHAT_TO_DO } from './page.js';
import { dateTimeText } from './table.js';
import { subscriptionsSection } from './subscriptions.js';
/** @typedef {import('./types.d.ts').StatusAnswer} StatusAnswer */

export const FAST_POLL_MS = 2000;
export const SLOW_POLL_MS = 20000;

/**
 * An instant as local wall time in the account's zone, e.g. "2026-11-22 02:30:00 (Australia/Sydney)".
 * @param {string | null} iso
 * @param {string} zone
 */
export function localTime(iso, zone) {
  if (!iso) return '—';
  const f = new Intl.DateTimeFormat('sv-SE', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  return `${f.format(new Date(iso))} (${zone})`;
}

/** @param {StatusAnswer} st */
const isRunning = (st) => Boolean(st.sync.running || st.last_run?.outcome === 'running');
/**
 * What changes when a run starts or ends: then the runs table is reloaded.
 * @param {StatusAnswer} st
 */
const runKey = (st) => `${st.last_run?.run_id ?? ''}|${st.last_run?.outcome ?? ''}|${isRunning(st)}`;
/** @param {string | null | undefined} iso */
const shown = (iso) => (iso ? dateTimeText(String(iso)) : '—');

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} id
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, id, text = '') {
  const e = document.createElement(tag);
  if (id) e.id = id;
  e.textContent = text;
  return e;
}

/** Builds the status box once and keeps it current from the polls. */
function createStatusBox() {
  const line = el('p', 'sync-status');
  const next = el('span', 'next-run');
  const state = el('span', 'sync-state');
  const last = el('p', 'last-run');
  const why = el('p', 'last-run-problem');
  why.className = 'run-problem';
  why.hidden = true;
  const note = el('p', 'status-note', 'Status unavailable; retrying.');
  note.className = 'note';
  note.hidden = true;
  const btn = el('button', 'sync-now', 'Sync now');
  btn.type = 'button';
  const out = el('p', 'sync-result');
  // Last runs the database does not show (its row could not be written, its process died),
  // from the state file beside it: they, not the table below, say how the last run went.
  const outside = el('ul', 'runs-outside-db');
  outside.className = 'note';
  outside.hidden = true;
  const nodes = [line, last, why, outside, note, btn, out];

  /** @type {StatusAnswer | null} */
  let latest = null;
  /** @type {string | null} */
  let key = null;
  let posting = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let inFlight = false;
  let again = false;
  let polls = 0;

  /** @param {StatusAnswer} st */
  function render(st) {
    latest = st;
    const schedule = st.sync.schedule
      ? `Schedule: ${st.sync.schedule}${st.sync.available ? '' : ' (off: no API credentials)'}`
      : 'Schedule: none (set FLEETSYNC_SCHEDULE)';
    next.dataset.iso = st.sync.next_run ?? '';
    next.textContent = `next run: ${localTime(st.sync.next_run, st.zone)}`;
    const running = isRunning(st);
    state.dataset.state = running ? 'running' : 'idle';
    state.textContent = running ? 'a sync is running' : 'idle';
    line.replaceChildren(`${schedule} · `, next, ' · ', state, ` · ${st.complete_through_text}`);
    const r = st.last_run;
    last.dataset.runId = r?.run_id ?? '';
    last.dataset.outcome = r?.outcome ?? '';
    last.textContent = r
      ? `Last run ${r.run_id} (${r.trigger}): ${r.outcome} · started ${shown(r.started_at)}` +
        (r.ended_at ? ` · ended ${shown(r.ended_at)} · ${r.requests} requests` : '')
      : 'No sync run yet.';
    const missing = st.runs_outside_db ?? [];
    outside.hidden = missing.length === 0;
    outside.replaceChildren(
      ...missing.map((m) =>
        el(
          'li',
          '',
          `Run ${m.run_id} (${m.trigger}) of account ${m.account}: ${m.outcome}, started ${shown(m.started_at)}` +
            ` — not in the database: ${m.reason ?? 'no reason recorded'}`,
        ),
      ),
    );
    // not ok: what `fleetsync status` says about it, and what to do
    const problems = runProblems(st);
    why.hidden = problems.length === 0;
    why.textContent = problems.length ? `${problems.join(' · ')}. ${WHAT_TO_DO}` : '';
    const skipped = r?.skipped ?? [];
    if (skipped.length) {
      const s = el('span', 'last-skipped');
      s.textContent = ` · skipped (not permitted or not available for these credentials): ${skipped
        .map((k) => `${k.stream} (${k.endpoint})`)
        .join(', ')}`;
      last.append(s);
    }
    btn.disabled = !st.sync.available || running || posting;
    btn.title = st.sync.available ? '' : 'no sync engine is wired into this server';
  }

  /** @param {number} ms */
  function schedule(ms) {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (document.visibilityState === 'hidden') return; // resumes on visibilitychange
    timer = setTimeout(poll, ms);
  }

  async function poll() {
    timer = null;
    if (inFlight) {
      again = true; // one poll at a time: the running one schedules the next at once
      return;
    }
    if (document.visibilityState === 'hidden') return;
    inFlight = true;
    try {
      const st = await getStatus();
      note.hidden = true;
      render(st);
      const k = runKey(st);
      if (key !== null && k !== key) refreshTable();
      key = k;
    } catch {
      note.hidden = false; // keep the last known status; the next poll may succeed
    } finally {
      inFlight = false;
      const fast = posting || (latest !== null && isRunning(latest));
      schedule(again ? 0 : fast ? FAST_POLL_MS : SLOW_POLL_MS);
      again = false;
      polls++;
      line.dataset.polls = String(polls); // finished polls (the next one is scheduled by now)
    }
  }

  btn.addEventListener('click', async () => {
    btn.disabled = true;
    posting = true;
    out.textContent = 'Syncing…';
    schedule(300); // show the run as running while the request is open
    try {
      const s = await postSync();
      out.textContent = `Run ${s.run_id}: ${s.outcome}, ${s.requests} requests.`;
    } catch (e) {
      out.textContent = `Sync not started: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      posting = false;
      void poll();
    }
  });

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    } else void poll();
  });

  return {
    nodes,
    /** @param {StatusAnswer} st */
    start(st) {
      render(st);
      key = runKey(st);
      schedule(isRunning(st) ? FAST_POLL_MS : SLOW_POLL_MS);
    },
  };
}

/** Reloads the page's sections (the runs table) through the filter bar, as a filter change would. */
function refreshTable() {
  document.querySelector('#f-vehicle')?.dispatchEvent(new Event('change'));
}

/** @type {ReturnType<typeof createStatusBox> | null} */
let box = null;

/** @type {import('./types.d.ts').HeaderHook} */
function header(container, status) {
  if (box) return; // built once; the polls keep it current
  box = createStatusBox();
  container.replaceChildren(...box.nodes, subscriptionsSection(localTime));
  box.start(status);
}

/** Errors listed in a runs row; the rest are counted (a long list made rows tall and blank). */
const MAX_LISTED = 3;

/**
 * Why a run was not ok, from its errors: what stopped the run (stream "*"), else the first
 * failure and how many there were; null without errors.
 * @param {unknown} errors the runs row's errors (JSON text)
 */
export function runReason(errors) {
  if (typeof errors !== 'string' || !errors.startsWith('[')) return null;
  /** @type {{ stream?: string, scope?: string, reason?: string }[]} */
  let list;
  try {
    list = JSON.parse(errors);
  } catch {
    return null;
  }
  if (!Array.isArray(list) || list.length === 0) return null;
  const stop = list.find((e) => e?.stream === '*');
  if (stop?.reason) return stop.reason;
  const first = list[0];
  const where = [first?.stream, first?.scope].filter(Boolean).join(' ');
  const n = list.length;
  return `${n} failure${n === 1 ? '' : 's'}, first: ${where ? `${where}: ` : ''}${first?.reason ?? 'no reason given'}`;
}

/**
 * A JSON cell of the runs report as people read it: the errors as a list ("odometer 12: rate
 * limited"), counts by key as "trips: 3, odometer: 1"; null when it is not JSON.
 * @param {string} col
 * @param {unknown} value
 * @param {string} text the cell's text (the outcome's label)
 * @param {unknown} [errors] the row's errors (for the outcome cell: why the run was not ok)
 * @returns {Node | null}
 */
export function runCell(col, value, text, errors = null) {
  if (col === 'outcome' && typeof value === 'string') {
    const b = document.createElement('span');
    b.className = `badge badge-${value}`;
    b.textContent = text;
    // a run that did not end ok says why in its row, beside the outcome (issue 25)
    const why = value === 'ok' ? null : runReason(errors);
    if (!why) return b;
    const span = document.createElement('span');
    span.className = 'run-reason';
    span.textContent = why;
    const cell = document.createElement('span');
    cell.append(b, span);
    return cell;
  }
  // the streams asked for, a comma list: spaced, so the cell wraps instead of widening the table
  if (col === 'streams' && typeof value === 'string')
    return document.createTextNode(value.split(',').join(', '));
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return null;
  /** @type {unknown} */
  let v;
  try {
    v = JSON.parse(value);
  } catch {
    return null;
  }
  if (col === 'skipped' && Array.isArray(v)) return skippedCell(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return document.createTextNode('');
    const ul = document.createElement('ul');
    ul.className = 'cell-list';
    for (const e of v.slice(0, MAX_LISTED)) {
      const li = document.createElement('li');
      if (e && typeof e === 'object') {
        const { stream, scope, reason, ...rest } = /** @type {Record<string, unknown>} */ (e);
        const where = [stream, scope].filter((x) => x !== undefined && x !== null && x !== '').join(' ');
        const more = Object.entries(rest).map(
          ([k, x]) => `${k} ${typeof x === 'string' ? x : JSON.stringify(x)}`,
        );
        li.textContent = [where ? `${where}:` : '', reason ?? '', ...more].filter(Boolean).join(' ');
      } else li.textContent = String(e);
      ul.append(li);
    }
    if (v.length > MAX_LISTED) {
      const li = document.createElement('li');
      li.textContent = `… and ${v.length - MAX_LISTED} more (the CSV has them all)`;
      ul.append(li);
    }
    return ul;
  }
  if (v && typeof v === 'object') {
    // {"trips": {"done": 3, "failed": 1}} reads "trips 3 done, 1 failed; …" (counts of 0 left out)
    const parts = Object.entries(v).map(([k, x]) =>
      x && typeof x === 'object'
        ? `${k} ${
            Object.entries(x)
              .filter(([, n]) => n !== 0)
              .map(([what, n]) => `${typeof n === 'object' ? JSON.stringify(n) : n} ${what}`)
              .join(', ') || 'none'
          }`
        : `${k}: ${x}`,
    );
    return document.createTextNode(
      parts.length ? parts.join(Object.values(v).some((x) => x && typeof x === 'object') ? '; ' : ', ') : '',
    );
  }
  return null;
}

/** The words of an endpoint's access state, short (the reason is the cell's tooltip). */
const STATE_WORDS = /** @type {Record<string, string>} */ ({
  not_permitted: 'not permitted',
  not_available: 'not available',
});

/**
 * The streams a run skipped, one line: "drivers (GET /drivers): not permitted; activity (GET
 * /vehicles/activity): not available", the API's words in the tooltip, so the row stays one line
 * high instead of a list of long messages.
 * @param {unknown[]} list
 */
function skippedCell(list) {
  const span = document.createElement('span');
  span.className = 'skipped';
  /** @type {string[]} */
  const shown = [];
  /** @type {string[]} */
  const why = [];
  for (const e of list) {
    const { stream, endpoint, state, reason } = /** @type {Record<string, unknown>} */ (
      e && typeof e === 'object' ? e : { stream: String(e) }
    );
    const words = typeof state === 'string' ? (STATE_WORDS[state] ?? state) : '';
    shown.push(`${stream}${endpoint ? ` (${endpoint})` : ''}${words ? `: ${words}` : ''}`);
    if (reason) why.push(`${stream}: ${reason}`);
  }
  span.textContent = shown.join('; ');
  if (why.length) span.title = why.join('\n');
  return span;
}

startPage({
  title: 'Sync runs',
  header,
  sections: [
    {
      id: 'runs',
      title: 'Latest runs',
      report: 'runs',
      tableOpts: { cellNode: (col, value, row, text) => runCell(col, value, text, row.errors) },
    },
  ],
});
