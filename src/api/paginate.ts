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
import { FleetsyncError } from '../errors.ts';
import type { PageMeta } from './types.ts';

export const PAGE_LIMIT = 500;
export const MAX_PAGES = 2000; // 1,000,000 rows per window: far beyond any real window

export interface Page<T> {
  items: T[];
  meta: PageMeta | null;
}

export interface PaginateOptions {
  endpoint: string;
  limit?: number;
  maxPages?: number;
}

export async function paginate<T>(
  fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  opts: PaginateOptions,
): Promise<T[]> {
  const limit = opts.limit ?? PAGE_LIMIT;
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const out: T[] = [];
  let pageSize = limit;
  let total: number | null = null;
  let previous: string | null = null;
  for (let page = 1; ; page++) {
    if (page > maxPages)
      throw new FleetsyncError('E_PAYLOAD', `${opts.endpoint}: more than ${maxPages} pages; stopped`, {
        details: { endpoint: opts.endpoint, pages: maxPages, rows: out.length },
      });
    const { items, meta } = await fetchPage(page, limit);
    if (items.length === 0) break;
    const fingerprint = JSON.stringify(items);
    if (page > 1 && fingerprint === previous)
      throw new FleetsyncError('E_PAYLOAD', `${opts.endpoint}: page ${page} repeats page ${page - 1}`, {
        details: { endpoint: opts.endpoint, page, sample: fingerprint.slice(0, 300) },
      });
    previous = fingerprint;
    out.push(...items);
    if (page === 1 && meta) {
      if (meta.per_page > 0 && meta.per_page < limit) pageSize = meta.per_page;
      if (meta.total >= 0) total = meta.total;
    }
    if (items.length < pageSize) break;
    const metaSaysLast = meta !== null && meta.current_page === page && meta.current_page >= meta.last_page;
    if (metaSaysLast && (total === null || out.length >= total)) break;
  }
  return out;
}
