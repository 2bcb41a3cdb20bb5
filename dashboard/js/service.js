// Service due (issue 28 item 1): per vehicle the next service by km and by date, the km and days
// remaining, the forecast from the vehicle's own recent distance and the status (overdue, due
// soon, ok, unknown with its reason). The list is as of now: the period filter does not change it;
// vehicle and department do. Blank means unknown (never 0); a vehicle without a recorded service
// is "Unknown", never OK.
import { postServiceDone } from './api.js';
import { hrefWith, startPage } from './page.js';

/** The status badges (style.css): overdue red, due amber, ok green, unknown plain. */
const BADGE = /** @type {Record<string, string>} */ ({
  overdue: 'failed',
  due: 'partial',
  ok: 'ok',
  unknown: 'unknown',
});

/**
 * A labelled, required input of the record form.
 * @param {string} name @param {string} label @param {string} type @param {Record<string, string>} attrs
 */
function field(name, label, type, attrs = {}) {
  const l = document.createElement('label');
  const input = document.createElement('input');
  input.name = name;
  input.type = type;
  input.required = true;
  for (const [k, v] of Object.entries(attrs)) input.setAttribute(k, v);
  l.append(`${label} `, input);
  return l;
}

/**
 * "Record a service": the vehicle (id or registration), its day and the odometer reading; the
 * server checks it as `fleetsync service done` does and the list reloads with it. A reading the
 * synced odometer contradicts is refused naming the known reading; then "Record anyway" appears
 * (the API's `force`). Notes of a recorded service (recorded anyway, no plan) stay on the page.
 * Drawn once.
 * @param {HTMLElement} box
 */
function recordForm(box) {
  if (box.querySelector('form')) return;
  const form = document.createElement('form');
  form.className = 'service-form';
  form.setAttribute('aria-label', 'Record a service');
  const title = document.createElement('strong');
  title.textContent = 'Record a service';
  const button = Object.assign(document.createElement('button'), { type: 'submit', textContent: 'Record' });
  const out = document.createElement('p');
  out.className = 'note';
  out.setAttribute('role', 'status');
  // shown only after a refusal that force would record (the reading against the synced odometer)
  const force = document.createElement('label');
  const forceBox = Object.assign(document.createElement('input'), { type: 'checkbox', name: 'force' });
  force.append(forceBox, ' Record anyway (odometer replaced, or the synced readings are wrong)');
  force.hidden = true;
  form.append(
    title,
    field('vehicle', 'Vehicle', 'text', { placeholder: 'registration or id', size: '14' }),
    field('date', 'Day', 'date'),
    field('odometer', 'Odometer (km)', 'number', { min: '0', step: 'any' }),
    force,
    button,
    out,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = (/** @type {string} */ n) => String(new FormData(form).get(n) ?? '');
    button.disabled = true;
    out.classList.remove('error');
    postServiceDone({
      vehicle: v('vehicle'),
      date: v('date'),
      odometer: v('odometer'),
      ...(forceBox.checked && !force.hidden ? { force: true } : {}),
    })
      .then((r) => {
        const who = String(r.service_due?.registration ?? r.vehicle_id);
        if (r.notes.length) {
          // what the person must know stays readable: the list is reloaded by hand
          out.textContent = `Recorded for ${who}. ${r.notes.map((n) => `Note: ${n}.`).join(' ')} Reload the page to see it in the list.`;
          button.disabled = false;
          return;
        }
        out.textContent = `Recorded for ${who}; reloading…`;
        location.reload();
      })
      .catch(
        (/** @type {Error & { answer?: Partial<import('./types.d.ts').ServiceRefusedAnswer> }} */ err) => {
          out.textContent = err.message;
          out.classList.add('error');
          force.hidden = err.answer?.forcible !== true;
          forceBox.checked = false;
          button.disabled = false;
        },
      );
  });
  box.append(form);
}

startPage({
  title: 'Service due',
  header: (box) => recordForm(box),
  sections: [
    {
      id: 'due',
      title: 'Service due per vehicle',
      report: 'service_due',
      note:
        'From the service plan (FLEETSYNC_SERVICE_PLAN): each vehicle’s interval (its own, its class’s or the fleet’s) ' +
        'counted from its last service (the plan file or `fleetsync service done`). Km since the service are the ' +
        'odometer windows the mileage counts: a reset or a tracker swap is left out, never read as a service. The ' +
        'forecast rests on the vehicle’s own distance in the last 30 synced days; blank when fewer than 14 are known. ' +
        'Due soon: within the plan’s warning distance or days. The list is as of now; the period does not change it.',
      chart: {
        type: 'bar',
        x: 'registration',
        y: ['km_remaining'],
        labels: ['km to the next service'],
        yTitle: 'km',
        horizontal: true,
      },
      tableOpts: {
        hide: ['zone', 'vehicle_id', 'interval_scope', 'odometer_as_of', 'forecast_basis_days'],
        cellClass: (col, v) =>
          (col === 'days_remaining' || col === 'km_remaining') && typeof v === 'number' && v < 0 ? 'bad' : '',
        cellNode: (col, value, _row, text) => {
          if (col !== 'status' || typeof value !== 'string') return null;
          const b = document.createElement('span');
          b.className = `badge badge-${BADGE[value] ?? 'unknown'}`;
          b.textContent = text;
          return b;
        },
        // a vehicle's km come from its odometer windows: its mileage page shows them month by month
        link: (col, r) =>
          col === 'registration' ? hrefWith('mileage.html', { vehicle: r.vehicle_id }) : null,
        empty: 'No vehicles synced yet.',
      },
    },
  ],
});
