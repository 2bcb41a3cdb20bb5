/**
 * Page-number pagination (`page` 1-based, `limit`), robust to the metadata bug the changelog
 * names (wrong `meta` on page 2 and later), and never silently short:
 *
 * - send `limit=500` (the largest the API honours); the page size is `min(limit, meta.per_page of
 *   page 1)` so a server that clamps lower does not look like a short page;
 * - page 1's `meta.total` is the announcement the read must add up to. Each page is checked
 *   against it: fewer records than its place leaves (short, or empty before the last), more than
 *   announced, a record an earlier page already gave (a repeated or shifted page), and — where a
 *   later page's meta is its own (its `current_page` and `per_page` are this page's, so not the
 *   metadata bug) — a total other than page 1's or a `from` other than the page's place. Such a
 *   page is asked again (PAGE_RETRIES times, through the caller's request path, so the rate
 *   buckets count it); still not adding up, the read fails with E_INCOMPLETE ("GET /trips: 750
 *   of 1,247 records announced; page 2 …"), so its window is never stored as done;
 * - a record listed twice within one page (the same fill twice) is the one expected difference:
 *   counted as a duplicate (`onTally`), not a failure;
 * - stop once the announced records are in and the page is short or meta says it is the last
 *   (a full page with more pages to come asks one more: it must be empty);
 * - without page 1's `total` (no meta) nothing can be checked: stop on an empty or short page;
 *   the tally's `announced` is then null (unknown);
 * - stop with E_PAYLOAD when a page repeats the previous one (server ignores `page`) or after
 *   `maxPages` pages: never loop forever, never truncate silently.
 */
import { PAGE_LIMIT, PAGE_RETRIES } from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import type { PageMeta } from './types.ts';

export { PAGE_LIMIT };
export const MAX_PAGES = 2000; // 1,000,000 rows per window: far beyond any real window

export interface Page<T> {
  items: T[];
  meta: PageMeta | null;
}

export interface PaginateOptions<T = unknown> {
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
  /** A page that does not add up is asked again this many times (default PAGE_RETRIES). */
  retries?: number;
  /** A record's identity, for repeats and duplicates (default: its JSON, hashed by `hashRecord`). */
  key?: (item: T) => string;
  /** Called once a read has added up, with what it received. */
  onTally?: (t: ReadTally) => void;
}

/**
 * What one paged read received: `announced` is page 1's `total` (null: no meta, unknown), `kept`
 * the distinct records, `duplicates` the records listed a second time within a page (kept +
 * duplicates = announced when known).
 */
export interface ReadTally {
  announced: number | null;
  kept: number;
  duplicates: number;
}

export const PAGE_PARALLEL = 8;

/** Adds a read's tally to `into` (a unit's meter); `announced` stays unknown once one read did not say. */
export function addTally(into: { read?: ReadTally } | undefined, t: ReadTally): void {
  if (!into) return;
  const r = into.read;
  into.read = r
    ? {
        announced: r.announced === null || t.announced === null ? null : r.announced + t.announced,
        kept: r.kept + t.kept,
        duplicates: r.duplicates + t.duplicates,
      }
    : { ...t };
}

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

const fmt = (n: number) => n.toLocaleString('en-US');

/** A 53-bit hash of a record's key (cyrb53): the read holds numbers, not every record's JSON. */
function hash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * The same 53-bit hash over a record's JSON text, fed value by value instead of from the text
 * (no string per record): what JSON.stringify would write decides it — keys in order, a key whose
 * value is undefined left out, −0 as 0, a non-finite number as null — so two records hash alike
 * exactly when their JSON is alike (up to the hash's collisions).
 */
let h1 = 0;
let h2 = 0;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
function feed(c: number): void {
  h1 = Math.imul(h1 ^ c, 2654435761);
  h2 = Math.imul(h2 ^ c, 1597334677);
}
function feedText(t: string): void {
  feed(t.length);
  for (let i = 0; i < t.length; i++) feed(t.charCodeAt(i));
}
function feedValue(v: unknown): void {
  if (v === null || v === undefined) return feed(0x6e); // n (undefined only inside a list, as JSON)
  switch (typeof v) {
    case 'boolean':
      return feed(v ? 0x74 : 0x66);
    case 'number':
      if (!Number.isFinite(v)) return feed(0x6e);
      f64[0] = v === 0 ? 0 : v;
      feed(0x64);
      feed(u32[0]!);
      return feed(u32[1]!);
    case 'string':
      feed(0x73);
      return feedText(v);
    case 'object':
      if (Array.isArray(v)) {
        feed(0x5b);
        for (const x of v) feedValue(x);
        return feed(0x5d);
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function')
        return feedValue((v as { toJSON: () => unknown }).toJSON()); // a Date: its ISO text
      feed(0x7b);
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
        feedText(k);
        feedValue(x);
      }
      return feed(0x7d);
    default:
      feed(0x6a);
      return feedText(JSON.stringify(v) ?? '');
  }
}
export function hashRecord(x: unknown): number {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;
  feedValue(x);
  let a = h1;
  let b = h2;
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

export async function paginate<T>(
  fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  opts: PaginateOptions<T>,
): Promise<T[]> {
  const limit = opts.limit ?? PAGE_LIMIT;
  const maxPages = opts.maxPages ?? MAX_PAGES;
  const parallel = Math.max(1, opts.parallel ?? PAGE_PARALLEL);
  const maxRecords = opts.maxRecords ?? Infinity;
  const retries = Math.max(0, opts.retries ?? PAGE_RETRIES);
  const key = opts.key;
  const keyOf: (x: T) => number = key ? (x) => hash(key(x)) : hashRecord;
  const out: T[] = [];
  const seen = new Set<number>();
  let duplicates = 0;
  let pageSize = limit;
  let total: number | null = null;
  let previous: string | null = null;
  /** The keys of the last page taken. */
  let lastKeys: number[] = [];

  /** Page size and total a page sets: page 1's meta, else what is known. */
  const announcedBy = (page: number, meta: PageMeta | null) =>
    page === 1 && meta
      ? {
          size: meta.per_page > 0 && meta.per_page < limit ? meta.per_page : limit,
          total: meta.total >= 0 ? meta.total : null,
        }
      : { size: pageSize, total };

  /** Why page `page` does not add up to page 1's announcement (null: it does, or nothing is known). */
  const problem = (page: number, { items, meta }: Page<T>, keys: number[]): string | null => {
    const a = announcedBy(page, meta);
    if (a.total === null) return null;
    const due = Math.max(0, Math.min(a.size, a.total - (page - 1) * a.size));
    if (items.length !== due) {
      const held = items.length === 0 ? 'was empty' : `held ${fmt(items.length)} records`;
      return `${held} where ${fmt(due)} were due${items.length > due ? ' (more than announced)' : ''}`;
    }
    if (page > 1 && meta && meta.current_page === page && meta.per_page === a.size) {
      if (meta.total >= 0 && meta.total !== a.total) return `said the total is ${fmt(meta.total)}`;
      const at = (page - 1) * a.size + 1;
      if (items.length > 0 && meta.from !== undefined && meta.from !== at)
        return `started at record ${fmt(meta.from)} where ${fmt(at)} was due`;
    }
    const i = keys.findIndex((k) => seen.has(k));
    if (i >= 0) return `repeated a record of an earlier page (item ${i + 1}) where another was due`;
    return null;
  };

  /**
   * Whether page `page`, whose first record is the previous page's last (and nothing else
   * repeats), is a record the API lists twice rather than a page shifted one early: the two
   * cannot be told apart from these pages, so the boundary is read once more at another page
   * size (one request), which puts both places on one page. A record listed twice is there
   * twice again, and that page matches the two pages record for record; a shifted page does not.
   */
  const listedTwiceAtBoundary = async (page: number, keys: number[]): Promise<boolean> => {
    if (keys.length === 0 || keys[0] !== lastKeys.at(-1) || keys.slice(1).some((k) => seen.has(k)))
      return false;
    const at = (page - 1) * pageSize; // the page's first place (0-based)
    // A smaller page size whose page holds at least two places before `at` and `at` itself (a
    // page shifted early again would then have to meet three equal records in a row to match).
    let size = pageSize - 1;
    const fits = (s: number) => (at - 1) % s >= 1 && (at - 1) % s <= s - 2;
    while (size >= 3 && !fits(size)) size--;
    if (size < 3) return false;
    const q = Math.floor((at - 1) / size) + 1;
    const check = (await fetchPage(q, size)).items.map(keyOf);
    const both = [...lastKeys, ...keys]; // places at - lastKeys.length ...
    const offset = (q - 1) * size - (at - lastKeys.length);
    const covered = Math.min(check.length, both.length - offset);
    return (
      check.length >= at - (q - 1) * size + 1 &&
      check.slice(0, covered).every((k, j) => k === both[offset + j])
    );
  };

  /** Page `page` once it adds up (asked again while it does not); throws E_INCOMPLETE after the retries. */
  const checked = async (page: number, first: Page<T>): Promise<{ p: Page<T>; keys: number[] }> => {
    let p = first;
    for (let asked = 1; ; asked++) {
      // A later page's own total above what the caller holds: too many records, whatever page 1 said.
      const later = p.meta && page > 1 && p.meta.current_page === page ? p.meta.total : -1;
      if (later > maxRecords) throw new TooManyRecords(opts.endpoint, later, maxRecords);
      const keys = p.items.map(keyOf);
      const wrong = problem(page, p, keys);
      if (wrong === null || (wrong.startsWith('repeated') && (await listedTwiceAtBoundary(page, keys))))
        return { p, keys };
      if (asked > retries) {
        const read = out.length + p.items.length;
        const announced = announcedBy(page, p.meta).total!;
        throw new FleetsyncError(
          'E_INCOMPLETE',
          `${opts.endpoint}: ${fmt(read)} of ${fmt(announced)} records announced; page ${page} ${wrong} (asked ${asked} times)`,
          {
            details: {
              endpoint: opts.endpoint,
              page,
              announced,
              received: read,
              sample: JSON.stringify(p.items.slice(0, 3)).slice(0, 300),
            },
          },
        );
      }
      p = await fetchPage(page, limit);
    }
  };

  /** Takes page `page` in order; false when it is the last one. */
  const take = async (page: number, got: Page<T>): Promise<boolean> => {
    if (page > 1 && got.items.length > 0) {
      // A page that repeats the previous one has the same length, first and last item: the
      // server ignores `page` (asking it again would not help).
      const fingerprint = `${got.items.length}|${JSON.stringify(got.items[0])}|${JSON.stringify(got.items[got.items.length - 1])}`;
      if (fingerprint === previous)
        throw new FleetsyncError('E_PAYLOAD', `${opts.endpoint}: page ${page} repeats page ${page - 1}`, {
          details: { endpoint: opts.endpoint, page, sample: JSON.stringify(got.items).slice(0, 300) },
        });
    }
    const { p, keys } = await checked(page, got);
    const { items, meta } = p;
    ({ size: pageSize, total } = announcedBy(page, meta));
    if (items.length === 0) return false;
    previous = `${items.length}|${JSON.stringify(items[0])}|${JSON.stringify(items[items.length - 1])}`;
    lastKeys = keys;
    for (const k of keys)
      if (seen.has(k)) duplicates++;
      else seen.add(k);
    out.push(...items);
    const known = Math.max(total ?? 0, out.length);
    if (known > maxRecords) throw new TooManyRecords(opts.endpoint, known, maxRecords);
    if (items.length < pageSize) return false;
    const metaSaysLast = meta !== null && meta.current_page === page && meta.current_page >= meta.last_page;
    return !(metaSaysLast && (total === null || out.length >= total));
  };

  const done = () => {
    opts.onTally?.({ announced: total, kept: out.length - duplicates, duplicates });
    return out;
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
    for (const p of pages) if (!(await take(page++, p))) return done();
  }
}
