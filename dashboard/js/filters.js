// The filter bar shared by every page: period presets (last 3 months, this/last month,
// this/last quarter, custom), vehicle and department. The filter lives in the URL, so navigation
// keeps it. A drill-down (`month=YYYY-MM`, e.g. the windows behind one vehicle-month; `driver=`, a
// driver's trips) also lives in the URL and is dropped as soon as the filter bar changes.
import { getAllRows } from './api.js';
/** @typedef {import('./types.d.ts').Filter} Filter */
/** @typedef {import('./types.d.ts').Drill} Drill */

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0');
/** @param {number} y @param {number} m 1-12 */
const lastDay = (y, m) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * Today's date (YYYY-MM-DD) in the account's zone at the server's clock.
 * @param {string} zone
 * @param {string} nowIso
 */
export function todayIn(zone, nowIso) {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(nowIso));
}

/**
 * The local days of a period preset, or null for 'custom' (or an unknown preset).
 * @param {string} preset
 * @param {string} today YYYY-MM-DD
 * @returns {{ from: string, to: string } | null}
 */
export function presetRange(preset, today) {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  /** @param {number} yy @param {number} mm */
  const month = (yy, mm) => ({ from: `${yy}-${pad(mm)}-01`, to: `${yy}-${pad(mm)}-${pad(lastDay(yy, mm))}` });
  if (preset === 'last_3_months') {
    const [yy, mm] = m <= 2 ? [y - 1, m + 10] : [y, m - 2];
    return { from: `${yy}-${pad(mm)}-01`, to: today };
  }
  if (preset === 'this_month') return { from: `${today.slice(0, 7)}-01`, to: today };
  if (preset === 'last_month') return m === 1 ? month(y - 1, 12) : month(y, m - 1);
  const q0 = Math.floor((m - 1) / 3) * 3 + 1;
  if (preset === 'this_quarter') return { from: `${y}-${pad(q0)}-01`, to: today };
  if (preset === 'last_quarter') {
    const [yy, qq] = q0 === 1 ? [y - 1, 10] : [y, q0 - 3];
    return { from: `${yy}-${pad(qq)}-01`, to: month(yy, qq + 2).to };
  }
  return null;
}

function readUrl() {
  const u = new URLSearchParams(location.search);
  return {
    preset: u.get('preset') ?? '',
    from: u.get('from') ?? '',
    to: u.get('to') ?? '',
    vehicle: u.get('vehicle') ?? '',
    department: u.get('department') ?? '',
    month: /^\d{4}-(0[1-9]|1[0-2])$/.test(u.get('month') ?? '') ? (u.get('month') ?? '') : '',
    driver: u.get('driver') ?? '',
    site: u.get('site') ?? '',
    day: /^\d{4}-\d{2}-\d{2}$/.test(u.get('day') ?? '') ? (u.get('day') ?? '') : '',
  };
}

/** The default period: the current month and the two before it, so a young month is never empty. */
export const DEFAULT_PRESET = 'last_3_months';

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

/**
 * Builds the filter bar into `form` and calls `onChange(filter, drill)` now and on every change.
 * `filter` is { from, to, vehicle, department }; `drill` is { month, driver, site, day } ('' when not drilled in).
 * @param {HTMLFormElement} form
 * @param {import('./types.d.ts').StatusAnswer} status
 * @param {(filter: Filter, drill: Drill) => void} onChange
 */
export async function setupFilters(form, status, onChange) {
  const today = todayIn(status.zone, status.now);
  const state = readUrl();
  if (!state.from && !state.preset) state.preset = DEFAULT_PRESET;
  const drill = { month: state.month, driver: state.driver, site: state.site, day: state.day };
  // Every vehicle, not only the first page of the report.
  const vehicles = await getAllRows('vehicles', {});
  const departments = [...new Set(vehicles.map((v) => v.department ?? '').filter(Boolean))].sort();

  const preset = el('select', { id: 'f-preset', name: 'preset' });
  for (const [v, label] of [
    ['last_3_months', 'Last 3 months'],
    ['this_month', 'This month'],
    ['last_month', 'Last month'],
    ['this_quarter', 'This quarter'],
    ['last_quarter', 'Last quarter'],
    ['custom', 'Custom range'],
  ])
    preset.append(new Option(label, v));
  const from = el('input', { id: 'f-from', name: 'from', type: 'date' });
  const to = el('input', { id: 'f-to', name: 'to', type: 'date' });
  const vehicle = el('select', { id: 'f-vehicle', name: 'vehicle' });
  const dept = el('select', { id: 'f-department', name: 'department' });
  dept.append(new Option('All departments', ''));
  for (const d of departments) dept.append(new Option(d, d));
  /**
   * The vehicle list follows the department: its vehicles only. `keep` (a vehicle outside it, as
   * a shared link may give) stays listed, marked, so the page shows what the link asks for (the
   * tiles then say "no vehicle matches").
   * @param {string} keep
   */
  const fillVehicles = (keep) => {
    vehicle.replaceChildren(new Option('All vehicles', ''));
    for (const v of vehicles) {
      const inDept = !dept.value || v.department === dept.value;
      if (!inDept && String(v.vehicle_id) !== keep) continue;
      const name = v.registration ?? `#${v.vehicle_id}`;
      vehicle.append(new Option(inDept ? name : `${name} (not in ${dept.value})`, String(v.vehicle_id)));
    }
  };
  const zone = el('span', { class: 'zone' }, `Days and times in ${status.zone}`);
  form.append(
    el('label', {}, 'Period ', preset),
    el('label', {}, 'From ', from),
    el('label', {}, 'To ', to),
    el('label', {}, 'Vehicle ', vehicle),
    el('label', {}, 'Department ', dept),
    zone,
  );

  preset.value = presetRange(state.preset, today) ? state.preset : 'custom';
  const range = presetRange(preset.value, today);
  from.value = range ? range.from : state.from;
  to.value = range ? range.to : state.to || today;
  dept.value = state.department;
  fillVehicles(state.vehicle);
  vehicle.value = state.vehicle;

  const current = () => ({ from: from.value, to: to.value, vehicle: vehicle.value, department: dept.value });
  const emit = () => {
    const f = current();
    const u = new URLSearchParams();
    if (preset.value !== 'custom') u.set('preset', preset.value);
    else {
      u.set('from', f.from);
      u.set('to', f.to);
    }
    if (f.vehicle) u.set('vehicle', f.vehicle);
    if (f.department) u.set('department', f.department);
    for (const a of document.querySelectorAll('nav a'))
      if (a instanceof HTMLAnchorElement) a.search = `?${u}`;
    if (drill.month) u.set('month', drill.month);
    if (drill.driver) u.set('driver', drill.driver);
    if (drill.site) u.set('site', drill.site);
    if (drill.day) u.set('day', drill.day);
    history.replaceState(null, '', `?${u}`);
    onChange(f, { ...drill });
  };
  // A change in the filter bar leaves the drill-down.
  form.addEventListener(
    'change',
    () => {
      drill.month = '';
      drill.driver = '';
      drill.site = '';
      drill.day = '';
    },
    { capture: true },
  );
  preset.addEventListener('change', () => {
    const r = presetRange(preset.value, today);
    if (r) {
      from.value = r.from;
      to.value = r.to;
    }
    emit();
  });
  for (const input of [from, to])
    input.addEventListener('change', () => {
      preset.value = 'custom';
      if (from.value && to.value) emit();
    });
  vehicle.addEventListener('change', emit);
  dept.addEventListener('change', () => {
    // a vehicle outside the new department is deselected, not kept
    const v = vehicles.find((x) => String(x.vehicle_id) === vehicle.value);
    const keep = v && (!dept.value || v.department === dept.value) ? vehicle.value : '';
    fillVehicles(keep);
    vehicle.value = keep;
    emit();
  });
  emit();
}
