// The subscriptions section of the Sync runs page: what this server e-mails on a schedule
// (FLEETSYNC_SUBSCRIPTIONS, and the month-end pack), each with its last send — when, the period,
// complete or partial with the reason (GET /api/subscriptions; docs/subscriptions.md).
import { getSubscriptions } from './api.js';
/** @typedef {import('./types.d.ts').SubscriptionsAnswer} SubscriptionsAnswer */
/** @typedef {import('./types.d.ts').SubscriptionSendAnswer} SubscriptionSendAnswer */

const PERIODS = /** @type {Record<string, string>} */ ({
  yesterday: 'yesterday',
  'last-week': 'last week',
  'last-month': 'last month',
  'month-to-date': 'month to date',
});

/** @typedef {(iso: string, zone: string) => string} TimeText an instant as wall time in the zone */

/**
 * The last send in words: "2026-04-01 07:05:00 (Australia/Sydney), 2026-03-01 to 2026-03-31,
 * complete" or "…, PARTIAL: <reason>"; "never sent".
 * @param {SubscriptionSendAnswer | null} s
 * @param {string} zone
 * @param {TimeText} localTime
 */
export function lastSendText(s, zone, localTime) {
  if (!s) return 'never sent';
  const period = s.period_from === s.period_to ? s.period_from : `${s.period_from} to ${s.period_to}`;
  const how = s.trigger === 'cli' ? ' (on request)' : '';
  return `${localTime(s.sent_at, zone)}${how}, ${period}, ${s.partial ? `PARTIAL: ${s.reason ?? 'no reason recorded'}` : 'complete'}`;
}

/**
 * @param {string[]} cells
 * @param {'td' | 'th'} tag
 */
function row(cells, tag = 'td') {
  const tr = document.createElement('tr');
  for (const c of cells) {
    const td = document.createElement(tag);
    td.textContent = c;
    tr.append(td);
  }
  return tr;
}

/**
 * The section, filled once from the API; an answer that fails says so instead of an empty list.
 * @param {TimeText} localTime
 * @returns {HTMLElement}
 */
export function subscriptionsSection(localTime) {
  const section = document.createElement('div');
  section.id = 'subscriptions';
  const h = document.createElement('h2');
  h.textContent = 'Subscriptions';
  const body = document.createElement('div');
  body.textContent = 'Loading…';
  section.append(h, body);
  getSubscriptions().then(
    (a) => body.replaceChildren(...render(a, localTime)),
    (e) => {
      body.textContent = `Subscriptions unavailable: ${e instanceof Error ? e.message : String(e)}`;
    },
  );
  return section;
}

/**
 * @param {SubscriptionsAnswer} a
 * @param {TimeText} localTime
 */
function render(a, localTime) {
  const rows = a.subscriptions.map((s) =>
    row([
      s.name,
      s.report_title,
      `${PERIODS[s.period] ?? s.period}${s.filter ? ` (${s.filter})` : ''}`,
      s.format === 'both' ? 'CSV and XLSX' : s.format.toUpperCase(),
      s.to.join(', '),
      `${s.schedule}${s.if_incomplete === 'wait' ? `, waits up to ${s.wait_hours} h for a complete period` : ''}`,
      lastSendText(s.last_send, a.zone, localTime),
    ]),
  );
  const p = a.month_end_pack;
  if (p)
    rows.push(
      row([
        'month-end-pack',
        'Mileage, fuel and tolls',
        'last month',
        'XLSX',
        p.to.join(', '),
        p.schedule
          ? `${p.schedule}, waits up to ${p.deadline_days} days after the month for a complete month`
          : 'only on request',
        lastSendText(p.last_send, a.zone, localTime),
      ]),
    );
  if (rows.length === 0) {
    const none = document.createElement('p');
    none.className = 'note';
    none.textContent = 'No subscriptions: set FLEETSYNC_SUBSCRIPTIONS (docs/subscriptions.md).';
    return [none];
  }
  const note = document.createElement('p');
  note.className = 'note';
  note.textContent = `Schedules are cron in ${a.zone}; a period not complete is sent marked partial with the reason.`;
  const table = document.createElement('table');
  const thead = document.createElement('thead');
  thead.append(row(['Name', 'Report', 'Period', 'Format', 'To', 'Schedule', 'Last sent'], 'th'));
  const tbody = document.createElement('tbody');
  tbody.append(...rows);
  table.append(thead, tbody);
  return [note, table];
}
