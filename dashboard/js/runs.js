import { api } from './api.js';
import { startPage } from './page.js';

async function header(box) {
  const st = await api('/api/status');
  box.replaceChildren();
  const p = document.createElement('p');
  p.id = 'sync-status';
  p.textContent =
    `Schedule: ${st.sync.schedule ?? 'none'} · next run: ${st.sync.next_run ?? '—'} · ` +
    `${st.sync.running ? 'a sync is running' : 'idle'} · complete through ${st.complete_through ?? '—'}`;
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
