/**
 * The release-notes files beside `/rest` (same origin, no auth, no rate-limit bucket):
 * `GET /changelog.json` (JSON Feed 1.1, latest 20 releases) and `GET /changelog/records.json`
 * (a JSON array, one change record per bullet of those releases). Both carry a strong `ETag`
 * (hash of the body) and `Last-Modified` (when the release list was last published). A request
 * whose `If-None-Match` lists the current ETag, or (without If-None-Match, as RFC 9110 says)
 * whose `If-Modified-Since` is at or after Last-Modified, gets 304 with no body. HEAD is served.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { jsonFeedOf, recordsOf, type Release } from '../changelog.ts';

export const CHANGELOG_PATHS = ['/changelog.json', '/changelog/records.json'] as const;

export interface Published {
  releases: readonly Release[];
  /** Last-Modified, epoch ms (whole seconds). */
  modifiedMs: number;
}

/** Last-Modified of a newly published list: the newest release date, never before `now` or the previous one. */
export function publishedAt(
  releases: readonly Release[],
  nowMs: number | null,
  previousMs: number | null,
): number {
  const newest = Math.max(
    0,
    ...releases.map((r) => Date.parse(`${r.date}T00:00:00Z`)).filter(Number.isFinite),
  );
  let ms = Math.max(newest, nowMs ?? 0);
  if (previousMs !== null && ms <= previousMs) ms = previousMs + 1000;
  return Math.floor(ms / 1000) * 1000;
}

function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .includes(etag);
}

/** Serves a changelog path; returns false when `pathname` is not one of them. */
export function serveChangelog(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  pathname: string,
  published: Published,
  origin: string,
): boolean {
  if (!(CHANGELOG_PATHS as readonly string[]).includes(pathname)) return false;
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    const text = JSON.stringify({ error: { code: 405, message: 'Method not allowed.' } });
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' });
    res.end(text);
    return true;
  }
  const body =
    pathname === '/changelog.json' ? jsonFeedOf(published.releases, origin) : recordsOf(published.releases);
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
  const lastModified = new Date(published.modifiedMs).toUTCString();
  const common = { ETag: etag, 'Last-Modified': lastModified, 'Cache-Control': 'no-cache' };
  const inm = req.headers['if-none-match'];
  const ims = req.headers['if-modified-since'];
  const since = typeof ims === 'string' ? Date.parse(ims) : NaN;
  const notModified =
    typeof inm === 'string'
      ? etagMatches(inm, etag)
      : Number.isFinite(since) && published.modifiedMs <= since;
  if (notModified) {
    res.writeHead(304, common);
    res.end();
    return true;
  }
  res.writeHead(200, {
    ...common,
    'Content-Type':
      pathname === '/changelog.json'
        ? 'application/feed+json; charset=utf-8'
        : 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(method === 'HEAD' ? undefined : text);
  return true;
}
