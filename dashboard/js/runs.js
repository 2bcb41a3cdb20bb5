import { api } from './api.js';
import { startPage } from './page.js';

/** An instant as local wall time in the account's zone, e.g. "2026-11-22 02:30:00 (Australia/Sydney)". */
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

async function header(box) {
  const st = await api('/api/status');
  box.replaceChildren();
  const p = document.createElement('p');
  p.id = 'sync-status';
  const schedule = st.sync.schedule
    ? `Schedule: ${st.sync.schedule}${st.sync.available ? '' : ' (off: no API credentials)'}`
    : 'Schedule: none (set FLEETSYNC_SCHEDULE)';
  const next = document.createElement('span');
  next.id = 'next-run';
  next.dataset.iso = st.sync.next_run ?? '';
  next.textContent = `next run: ${localTime(st.sync.next_run, st.zone)}`;
  p.append(
    `${schedule} · `,
    next,
    ` · ${st.sync.running ? 'a sync is running' : 'idle'} · complete through ${(st.complete_through ?? '—').replace('T', ' ')}`,
  );
  const btn = document.createElement('button');
  btn.id = 'sync-now';
  btn.type = 'button';
  btn.textContent = 'Sync now';
  btn.disabled = !st.sync.available || st.sync.running;
  btn.title = st.sync.available ? '' : 'no sync engine is wired into this server';
  const out = document.createElement('p');
  out.id = 'sync-result';
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    out.textContent = 'Syncing…';
    try {
      const s = await api('/api/sync', { method: 'POST' });
      out.textContent = `Run ${s.run_id}: ${s.outcome}, ${s.requests} requests.`;
      document.querySelector('#f-vehicle').dispatchEvent(new Event('change'));
    } catch (e) {
      out.textContent = `Sync not started: ${e.message}`;
      btn.disabled = false;
    }
  });
  box.append(p, btn, out);
}

startPage({
  title: 'Sync runs',
  header,
  sections: [{ id: 'runs', title: 'Latest runs', report: 'runs' }],
});
