/**
 * Page-number pagination (`page` 1-based, `limit`), robust to the metadata bug the changelog
 * names (wrong `meta` on page 2 and later):
 *
 * - send `limit=500` (the largest the API honours); the page size is `min(limit, meta.per_page of
 *   page 1)` so a server that clamps lower does not look like a short page;
 * - stop on an empty page, or a short page (fewer items than the page size);
 * - stop when meta says this is the last page, unless page 1's `total` says items are still
 *   missing (then the next page decides: it will be empty or short);
 * - stop with E_PAYLOAD when a page repeats the previous one (server ignores `page`) or after
 *   `maxPages` pages: never loop forever, never truncate silently.
 */
import { PAGE_LIMIT } from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import type { PageMeta } from './types.ts';

export { PAGE_LIMIT };
export const MAX_PAGES = 2000; // 1,000,000 rows per window: far beyond any real window

export interface Page<T> {
  items: T[];
  meta: PageMeta | null;
}

export interface PaginateOptions {
  endpoint: string;
  limit?: number;
  maxPages?: number;
  /**
   * Pages requested at once once page 1's `total` says how many there are (default 8). Pages 1
   * and 2 always go one at a time (page 2 proves the server honours `page`), so a server that
   * ignores it or overstates `total` costs at most `parallel - 1` needless requests.
   */
  parallel?: number;
  /**
   * The most records the caller will hold: once page 1's `total` (or, without it, the records
   * taken so far) exceeds it, `TooManyRecords` is thrown instead of fetching the rest, so the
   * caller can ask for smaller windows (a fleet-wide window's records are all held until its write).
   */
  maxRecords?: number;
}

export const PAGE_PARALLEL = 8;

/** A window holds more records than the caller's `maxRecords`: `total` as far as known. */
export class TooManyRecords extends Error {
  constructor(
    readonly endpoint: string,
    readonly total: number,
    readonly maxRecords: number,
  ) {
    super(`${endpoint}: ${total} records in one window, more than the ${maxRecords} held at once`);
    this.name = 'TooManyRecords';
  }
}

export async function paginate<T>(
  fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  opts: PaginateOptions,
): Promise<T[]> {
  const limit = opts.limit ?? PAGE_LIMIT;
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const parallel = Math.max(1, opts.parallel ?? PAGE_PARALLEL);
  const maxRecords = opts.maxRecords ?? Infinity;
  const out: T[] = [];
  let pageSize = limit;
  let total: number | null = null;
  let previous: string | null = null;

  /** Takes page `page` in order; false when it is the last one. */
  const take = (page: number, { items, meta }: Page<T>): boolean => {
    if (items.length === 0) return false;
    // A page that repeats the previous one has the same length, first and last item.
    const fingerprint = `${items.length}|${JSON.stringify(items[0])}|${JSON.stringify(items[items.length - 1])}`;
    if (page > 1 && fingerprint === previous)
      throw new FleetsyncError('E_PAYLOAD', `${opts.endpoint}: page ${page} repeats page ${page - 1}`, {
        details: { endpoint: opts.endpoint, page, sample: JSON.stringify(items).slice(0, 300) },
      });
    previous = fingerprint;
    out.push(...items);
    if (page === 1 && meta) {
      if (meta.per_page > 0 && meta.per_page < limit) pageSize = meta.per_page;
      if (meta.total >= 0) total = meta.total;
    }
    const known = Math.max(total ?? 0, out.length);
    if (known > maxRecords) throw new TooManyRecords(opts.endpoint, known, maxRecords);
    if (items.length < pageSize) return false;
    const metaSaysLast = meta !== null && meta.current_page === page && meta.current_page >= meta.last_page;
    return !(metaSaysLast && (total === null || out.length >= total));
  };

  for (let page = 1; ;) {
    if (page > maxPages)
      throw new FleetsyncError('E_PAYLOAD', `${opts.endpoint}: more than ${maxPages} pages; stopped`, {
        details: { endpoint: opts.endpoint, pages: maxPages, rows: out.length },
      });
    // Only page 1's meta is trusted (later pages' may be wrong), and only from page 3 on.
    const expected = total === null ? page : Math.ceil(total / pageSize);
    const batch = page < 3 ? 1 : Math.max(1, Math.min(parallel, expected - page + 1, maxPages - page + 1));
    const pages = await Promise.all(Array.from({ length: batch }, (_, i) => fetchPage(page + i, limit)));
    for (const p of pages) if (!take(page++, p)) return out;
  }
}
