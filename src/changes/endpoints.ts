/**
 * The endpoints the sync calls, and matching of the release notes' `METHOD /path` strings
 * against them. Templates match whatever their parameter is called (`{registration}`, `{reg}`,
 * `:reg`), with or without the `/rest` prefix, a full URL, a query string or a trailing slash;
 * an entry without a method matches every method.
 */
import { BUILTIN_STREAMS, endpointsOf } from '../sync/streams/index.ts';

/** The endpoints the built-in streams declare (src/sync/streams/*.ts), in registry order. */
export const SYNC_ENDPOINTS: readonly string[] = endpointsOf(BUILTIN_STREAMS);

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export interface EndpointKey {
  /** Upper-case method, or null when the entry names none. */
  method: string | null;
  /** Normalized path: no /rest, parameters as `{}`, lower case, no trailing slash. */
  path: string;
}

/** Parses `GET /rest/vehicles/{reg}/odometer` (or a bare path) into a comparable key; null if not one. */
export function endpointKey(text: string): EndpointKey | null {
  const m = /^\s*(?:([A-Za-z]+)\s+)?(\S+)\s*$/.exec(text);
  if (!m) return null;
  const method = m[1] ? m[1].toUpperCase() : null;
  if (method !== null && !METHODS.has(method)) return null;
  let path = m[2]!.replace(/^[a-z]+:\/\/[^/]+/i, '').split(/[?#]/)[0]!;
  if (!path.startsWith('/')) return null;
  path = path.replace(/^\/rest(?=\/|$)/i, '');
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^(\{[^}]*\}|:[A-Za-z_]\w*|<[^>]*>)$/.test(s) ? '{}' : s.toLowerCase()));
  return { method, path: `/${segs.join('/')}` };
}

export function sameEndpoint(a: string, b: string): boolean {
  const x = endpointKey(a);
  const y = endpointKey(b);
  if (!x || !y) return false;
  return x.path === y.path && (x.method === null || y.method === null || x.method === y.method);
}

/** The sync endpoints named by `endpoints` (in SYNC_ENDPOINTS order). */
export function syncEndpointsIn(
  endpoints: readonly string[],
  used: readonly string[] = SYNC_ENDPOINTS,
): string[] {
  return used.filter((u) => endpoints.some((e) => sameEndpoint(e, u)));
}
