// Talking to the fleetsync API: same-origin fetch, with the bearer token when the server asks for
// one (kept in sessionStorage for this tab only). The answers' types are src/server/api-types.ts,
// which the routes build: each endpoint has one typed function here.
/** @typedef {import('./types.d.ts').AccountsAnswer} AccountsAnswer */
/** @typedef {import('./types.d.ts').ChangesAnswer} ChangesAnswer */
/** @typedef {import('./types.d.ts').Query} Query */
/** @typedef {import('./types.d.ts').ReportName} ReportName */
/** @typedef {import('./types.d.ts').StatusAnswer} StatusAnswer */
/** @typedef {import('./types.d.ts').SyncAnswer} SyncAnswer */
const TOKEN_KEY = 'fleetsync.token';
// The account chosen in the selector (a server with several accounts); sent with every API call.
const ACCOUNT_KEY = 'fleetsync.account';

export const chosenAccount = () => sessionStorage.getItem(ACCOUNT_KEY) || '';
/** @param {string} name the account, or '' for the server's default */
export function chooseAccount(name) {
  if (name) sessionStorage.setItem(ACCOUNT_KEY, name);
  else sessionStorage.removeItem(ACCOUNT_KEY);
}
/** @param {string} path */
const withAccount = (path) =>
  chosenAccount() && path.startsWith('/api/') && !/[?&]account=/.test(path)
    ? `${path}${path.includes('?') ? '&' : '?'}account=${encodeURIComponent(chosenAccount())}`
    : path;

function headers() {
  const t = sessionStorage.getItem(TOKEN_KEY);
  // The server refuses state-changing calls without this header (a cross-site form cannot send it).
  return { 'X-Fleetsync-Request': '1', ...(t ? { Authorization: `Bearer ${t}` } : {}) };
}

/**
 * fetch, where a request that got no answer at all (the server stopped, the network down) fails
 * with what a person can act on instead of the browser's "Failed to fetch".
 * @param {string} path
 * @param {RequestInit} init
 */
async function reach(path, init) {
  try {
    return await fetch(path, { ...init, headers: { ...headers(), ...(init.headers ?? {}) } });
  } catch (e) {
    throw new Error('the fleetsync server did not answer (is it running, is the network up?)', { cause: e });
  }
}

/**
 * Any API call; the typed functions below name what each path answers.
 * @param {string} rawPath
 * @param {RequestInit} [init]
 * @returns {Promise<unknown>} the JSON body; a non-2xx answer throws an Error with its message, `status` and `answer` (the body)
 */
export async function api(rawPath, init = {}) {
  const path = withAccount(rawPath);
  let res = await reach(path, init);
  if (res.status === 401) {
    const t = window.prompt('This fleetsync server needs its access token (FLEETSYNC_TOKEN):');
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
      res = await reach(path, init);
    }
  }
  /** @type {unknown} */
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const message = /** @type {Partial<import('./types.d.ts').ErrorAnswer>} */ (body).message;
    throw Object.assign(new Error(message ?? `HTTP ${res.status}`), { status: res.status, answer: body });
  }
  return body;
}

/** @returns {Promise<StatusAnswer>} */
export const getStatus = async () => /** @type {StatusAnswer} */ (await api('/api/status'));

/**
 * The accounts regardless of the one chosen (`account=` empty: the server's default is `current`).
 * @returns {Promise<AccountsAnswer>}
 */
export const getAccounts = async () => /** @type {AccountsAnswer} */ (await api('/api/accounts?account='));

/** @returns {Promise<import('./types.d.ts').SubscriptionsAnswer>} */
export const getSubscriptions = async () =>
  /** @type {import('./types.d.ts').SubscriptionsAnswer} */ (await api('/api/subscriptions'));

/** @returns {Promise<ChangesAnswer>} */
export const getChanges = async () => /** @type {ChangesAnswer} */ (await api('/api/changes'));

/** @returns {Promise<ChangesAnswer>} */
export const ackChanges = async () =>
  /** @type {ChangesAnswer} */ (await api('/api/changes/ack', { method: 'POST' }));

/** @returns {Promise<SyncAnswer>} */
export const postSync = async () => /** @type {SyncAnswer} */ (await api('/api/sync', { method: 'POST' }));

/**
 * Records a service done (POST /api/service/done; docs/service.md): the vehicle's service_due line
 * after it and the notes to show; a refusal throws with every problem in its message and the
 * answer (`forcible`: `force` would record it).
 * @param {{ vehicle: string, date: string, odometer: string, force?: boolean }} service
 * @returns {Promise<import('./types.d.ts').ServiceDoneAnswer>}
 */
export const postServiceDone = async (service) =>
  /** @type {import('./types.d.ts').ServiceDoneAnswer} */ (
    await api('/api/service/done', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(service),
    })
  );

/**
 * One page of report `name` for the query string `q` (from `qs`).
 * @template {ReportName} N
 * @param {N} name
 * @param {string} q
 * @returns {Promise<import('./types.d.ts').ReportAnswerOf<N>>}
 */
export async function getReport(name, q) {
  return /** @type {import('./types.d.ts').ReportAnswerOf<N>} */ (await api(`/api/reports/${name}?${q}`));
}

/**
 * Every row of report `name`, page after page (a JSON answer holds one page, `total` says how
 * many rows there are): for lists that must be whole, such as the vehicles of the filter bar.
 * @template {ReportName} N
 * @param {N} name
 * @param {Query} params
 * @param {import('./types.d.ts').ReportAnswerOf<N>} [firstPage] the answer with offset 0, when already fetched
 * @returns {Promise<import('./types.d.ts').ReportRow<N>[]>}
 */
export async function getAllRows(name, params, firstPage) {
  const first = firstPage ?? (await getReport(name, qs(params)));
  const rows = [...first.rows];
  while (first.limit !== undefined && rows.length < first.total) {
    const page = await getReport(name, qs({ ...params, offset: rows.length, limit: first.limit }));
    if (page.rows.length === 0) break; // the data changed under us: keep what we have
    rows.push(...page.rows);
  }
  return rows;
}

/**
 * Query string of the filter (only set values), with the chosen account.
 * @param {Query} params
 */
export function qs(params) {
  const u = new URLSearchParams();
  if (chosenAccount()) u.set('account', chosenAccount());
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  return u.toString();
}

/**
 * A download link that also works when a token is needed (fetch + blob on click).
 * @param {HTMLAnchorElement} a
 */
export function wireDownload(a) {
  a.addEventListener('click', async (ev) => {
    if (!sessionStorage.getItem(TOKEN_KEY)) return; // plain link
    ev.preventDefault();
    const res = await fetch(a.href, { headers: headers() });
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const tmp = document.createElement('a');
    tmp.href = url;
    tmp.download = a.getAttribute('download') || 'report.csv';
    tmp.click();
    URL.revokeObjectURL(url);
  });
}
