/**
 * Pages that do not add up (issue 23): the simulated API answers one page of a paged list wrong,
 * as a real service behind a flaky proxy or a list changing under the reader does. The fleet and
 * its ground truth are untouched: only the answer of the page struck changes, so a test compares
 * what the sync stored with the truth.
 *
 * The fault strikes page `page` (default 2) of every paged answer (or of `path`'s only) that has
 * it, on every request, until the faults are changed (`setFaults`): a sync's retries see it again,
 * and a second run with the faults cleared sees a healthy API. Meta stays what the server computed
 * for the whole list (the page's `from`/`to` say where it should start), except for `total`.
 *
 * | kind | the page struck |
 * |---|---|
 * | `short` | half its records (not the last page) |
 * | `empty` | no records (not the last page) |
 * | `repeat` | its last record replaced by page 1's first |
 * | `total` | the list lost its first record after page `page - 1` was read: this page and later ones start one record late, and their meta says a total one lower |
 * | `shift_late` | starts one record late (its first missing, the next page's first at its end) |
 * | `shift_early` | starts one record early (the previous page's last first, its own last missing) |
 */

export type PageFaultKind = 'short' | 'empty' | 'repeat' | 'total' | 'shift_late' | 'shift_early';

export const PAGE_FAULT_KINDS: readonly PageFaultKind[] = [
  'short',
  'empty',
  'repeat',
  'total',
  'shift_late',
  'shift_early',
];

export interface PageFault {
  kind: PageFaultKind;
  /** The page struck (default 2; at least 2). */
  page?: number;
  /** Only answers of this route (its path under /rest as the routes write it: `/trips`). */
  path?: string;
}

interface PageMetaWire {
  current_page: number;
  per_page: number;
  last_page: number;
  total: number;
  from?: number;
  to?: number;
  [extra: string]: unknown;
}

export interface PagedBody {
  data: unknown[];
  meta: PageMetaWire;
}

/** The body of a paged list answer, else null. */
export function pagedBody(body: unknown): PagedBody | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as { data?: unknown; meta?: unknown };
  if (!Array.isArray(b.data) || typeof b.meta !== 'object' || b.meta === null) return null;
  const m = b.meta as Record<string, unknown>;
  return typeof m.current_page === 'number' && typeof m.per_page === 'number' && typeof m.total === 'number'
    ? (b as PagedBody)
    : null;
}

/**
 * `body` (page `meta.current_page` of a list) as the fault answers it; `pageOf(n)` is the same
 * request's page `n` as the healthy server answers it (null when it has none).
 */
export function applyPageFault(
  fault: PageFault,
  body: PagedBody,
  pageOf: (n: number) => PagedBody | null,
): PagedBody {
  const at = Math.max(2, Math.floor(fault.page ?? 2));
  const { current_page: p, last_page: last } = body.meta;
  const data = body.data;
  const nextFirst = () => pageOf(p + 1)?.data.slice(0, 1) ?? [];
  switch (fault.kind) {
    case 'short':
      return p === at && p < last ? { ...body, data: data.slice(0, Math.ceil(data.length / 2)) } : body;
    case 'empty':
      return p === at && p < last ? { ...body, data: [] } : body;
    case 'repeat': {
      const first = pageOf(1)?.data[0];
      return p === at && data.length > 0 && first !== undefined
        ? { ...body, data: [...data.slice(0, -1), first] }
        : body;
    }
    case 'shift_late':
      return p === at && data.length > 0 ? { ...body, data: [...data.slice(1), ...nextFirst()] } : body;
    case 'shift_early': {
      const before = pageOf(p - 1)?.data.at(-1);
      return p === at && before !== undefined ? { ...body, data: [before, ...data.slice(0, -1)] } : body;
    }
    case 'total': {
      if (p < at || body.meta.total === 0) return body;
      const moved = [...data.slice(1), ...nextFirst()];
      const total = body.meta.total - 1;
      const from = (p - 1) * body.meta.per_page + 1;
      return {
        data: moved,
        meta: {
          ...body.meta,
          total,
          last_page: Math.max(1, Math.ceil(total / body.meta.per_page)),
          from: moved.length ? from : 0,
          to: moved.length ? from + moved.length - 1 : 0,
        },
      };
    }
  }
}

/**
 * A request's `query` and `body` asking page `page` (undefined: as asked) with `limit` at most
 * `pageLimit` (undefined: as asked): `page` and `limit` go in the query of a GET and in the JSON
 * body of a POST, as the API takes them.
 */
export function pageRequest(
  method: string,
  query: URLSearchParams,
  body: unknown,
  page: number | undefined,
  pageLimit: number | undefined,
): { query: URLSearchParams; body: unknown } {
  if (page === undefined && pageLimit === undefined) return { query, body };
  const clamp = (limit: unknown) => {
    const n = Number(limit);
    return pageLimit !== undefined && limit !== undefined && limit !== null && n > pageLimit
      ? pageLimit
      : limit;
  };
  if (method === 'POST' && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const b = { ...(body as Record<string, unknown>) };
    if (page !== undefined) b.page = page;
    if ('limit' in b) b.limit = clamp(b.limit);
    return { query, body: b };
  }
  const q = new URLSearchParams(query);
  if (page !== undefined) q.set('page', String(page));
  const limit = q.get('limit');
  if (limit !== null) q.set('limit', String(clamp(limit)));
  return { query: q, body };
}
