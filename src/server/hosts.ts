/**
 * Host-header allow-list, against DNS rebinding: a web page whose domain an attacker re-points at
 * 127.0.0.1 may send requests to this server from the victim's browser, but they carry the
 * attacker's name in `Host`. Only the names this server is known by are answered, on every route:
 * the loopback names (localhost, 127.0.0.1, [::1], any port), FLEETSYNC_HOST when it is not a
 * wildcard (0.0.0.0, ::), and FLEETSYNC_ALLOWED_HOSTS (a name, or name:port for one port only).
 * Anything else gets 403 with a short text, before any other handler runs.
 */
import type { RequestHandler } from 'express';
import type { Config } from '../config.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** `name` or `[v6]`, and the port if any, of a Host header value (lower-case). */
export function splitHost(value: string): { name: string; port: string | null } {
  const v = value.trim().toLowerCase();
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(v);
  if (!m) return { name: v, port: null }; // e.g. a bare IPv6 without brackets: never allowed
  return { name: m[1]!, port: m[2] ?? null };
}

/** The names (and name:port entries) a server with this config answers for. */
export function allowedHostEntries(config: Pick<Config, 'host' | 'allowedHosts'>): string[] {
  const own = config.host.trim().toLowerCase();
  const bound = own.includes(':') && !own.startsWith('[') ? `[${own}]` : own;
  return [...LOOPBACK_NAMES, ...(WILDCARDS.has(bound) ? [] : [bound]), ...config.allowedHosts];
}

export function hostAllowed(header: string | undefined, entries: readonly string[]): boolean {
  if (!header) return false;
  const { name, port } = splitHost(header);
  return entries.some((e) => {
    const allowed = splitHost(e);
    return allowed.name === name && (allowed.port === null || allowed.port === port);
  });
}

export function hostGuard(config: Pick<Config, 'host' | 'allowedHosts'>): RequestHandler {
  const entries = allowedHostEntries(config);
  return (req, res, next) => {
    if (hostAllowed(req.headers.host, entries)) return next();
    res
      .status(403)
      .type('text/plain')
      .send(
        'This fleetsync server does not answer for that host name (Host header). ' +
          'Use the address it was started on, or add the name to FLEETSYNC_ALLOWED_HOSTS.\n',
      );
  };
}
