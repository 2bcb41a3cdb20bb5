// Talking to the fleetsync API: same-origin fetch, with the bearer token when the server asks for
// one (kept in sessionStorage for this tab only).
const TOKEN_KEY = 'fleetsync.token';
// The account chosen in the selector (a server with several accounts); sent with every API call.
const ACCOUNT_KEY = 'fleetsync.account';

export const chosenAccount = () => sessionStorage.getItem(ACCOUNT_KEY) || '';
export function chooseAccount(name) {
  if (name) sessionStorage.setItem(ACCOUNT_KEY, name);
  else sessionStorage.removeItem(ACCOUNT_KEY);
}
const withAccount = (path) =>
  chosenAccount() && path.startsWith('/api/') && !/[?&]account=/.test(path)
    ? `${path}${path.includes('?') ? '&' : '?'}account=${encodeURIComponent(chosenAccount())}`
    : path;

function headers() {
  const t = sessionStorage.getItem(TOKEN_KEY);
  // The server refuses state-changing calls without this header (a cross-site form cannot send it).
  return { 'X-Fleetsync-Request': '1', ...(t ? { Authorization: `Bearer ${t}` } : {}) };
}

export async function api(rawPath, init = {}) {
  const path = withAccount(rawPath);
  let res = await fetch(path, { ...init, headers: { ...headers(), ...(init.headers ?? {}) } });
  if (res.status === 401) {
    const t = window.prompt('This fleetsync server needs its access token (FLEETSYNC_TOKEN):');
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
      res = await fetch(path, { ...init, headers: { ...headers(), ...(init.headers ?? {}) } });
    }
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(body.message ?? `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

/** Query string of the filter (only set values). */
export function qs(params) {
  const u = new URLSearchParams();
  if (chosenAccount()) u.set('account', chosenAccount());
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  return u.toString();
}

/** A download link that also works when a token is needed (fetch + blob on click). */
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
