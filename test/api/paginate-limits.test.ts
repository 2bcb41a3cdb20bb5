/**
 * Pagination's guarantees, counted request by request on a page source in memory: it never loops
 * for ever (a server that ignores `page`, or pages without end, stop with a message naming the
 * endpoint), and once page 1 gives the total it asks exactly the pages that exist, several at a
 * time from page 3 on, never beyond `maxPages`.
 */
import { describe, expect, it } from 'vitest';
import { paginate, type Page } from '../../src/api/paginate.ts';
import { FleetsyncError } from '../../src/errors.ts';

/**
 * `actual` items served `perPage` at a time; page 1's meta claims `claimed` items (null: no meta
 * at all). Records each page asked with how many requests were in flight when it was asked.
 */
function source(actual: number, perPage: number, claimed: number | null = actual, ignorePage = false) {
  const asked: string[] = [];
  let inFlight = 0;
  const fetchPage = async (page: number): Promise<Page<number>> => {
    asked.push(`${page}@${++inFlight}`);
    await new Promise((r) => setImmediate(r));
    inFlight--;
    const p = ignorePage ? 1 : page;
    const items = Array.from({ length: actual }, (_, i) => i).slice((p - 1) * perPage, p * perPage);
    if (claimed === null) return { items, meta: null };
    const lastPage = Math.max(1, Math.ceil(claimed / perPage));
    return { items, meta: { current_page: page, per_page: perPage, last_page: lastPage, total: claimed } };
  };
  return { fetchPage, asked };
}

async function failure(p: Promise<unknown>): Promise<FleetsyncError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(FleetsyncError);
    return e as FleetsyncError;
  }
  throw new Error('no failure');
}

describe('never for ever', () => {
  it('a server that ignores `page` is stopped at page 2, naming the endpoint', async () => {
    const s = source(1_000, 200, 1_000, true);
    const e = await failure(paginate(s.fetchPage, { endpoint: 'GET /geofences', limit: 200 }));
    expect(e.code).toBe('E_PAYLOAD');
    expect(e.message).toBe('GET /geofences: page 2 repeats page 1');
    expect(e.details).toMatchObject({ endpoint: 'GET /geofences', page: 2 });
    expect(String(e.details?.sample)).toHaveLength(300);
    expect(s.asked).toEqual(['1@1', '2@1']);
  });

  it('pages without end stop after maxPages, with what was read so far', async () => {
    const s = source(1_000_000, 100, null);
    const e = await failure(paginate(s.fetchPage, { endpoint: 'GET /trips', limit: 100, maxPages: 3 }));
    expect(e.code).toBe('E_PAYLOAD');
    expect(e.message).toBe('GET /trips: more than 3 pages; stopped');
    expect(e.details).toEqual({ endpoint: 'GET /trips', pages: 3, rows: 300 });
    expect(s.asked).toEqual(['1@1', '2@1', '3@1']);
  });

  it('fanning out never asks beyond maxPages, even when the total claims more', async () => {
    const s = source(1_000, 100);
    const e = await failure(
      paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, maxPages: 4, parallel: 8 }),
    );
    expect(e.message).toBe('GET /x: more than 4 pages; stopped');
    expect(s.asked).toEqual(['1@1', '2@1', '3@1', '4@2']);
  });
});

describe('exactly the pages that exist', () => {
  it('2,600 items at 500 a page: pages 1 and 2 alone, then 3 to 6 at once, and no page 7', async () => {
    const s = source(2_600, 500);
    const got = await paginate(s.fetchPage, { endpoint: 'GET /x' });
    expect(got).toEqual(Array.from({ length: 2_600 }, (_, i) => i));
    expect(s.asked).toEqual(['1@1', '2@1', '3@1', '4@2', '5@3', '6@4']);
  });

  it('at most `parallel` at once, and only as many as the total leaves', async () => {
    const s = source(1_000, 100);
    expect(await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, parallel: 3 })).toHaveLength(1_000);
    expect(s.asked).toEqual(['1@1', '2@1', '3@1', '4@2', '5@3', '6@1', '7@2', '8@3', '9@1', '10@2']);
  });

  it('without meta: one page at a time until a short page', async () => {
    const s = source(250, 100, null);
    expect(await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100 })).toHaveLength(250);
    expect(s.asked).toEqual(['1@1', '2@1', '3@1']);
  });

  it('a server clamping the page size below the limit: its full pages are not taken for the last', async () => {
    const s = source(450, 200);
    expect(await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 500 })).toHaveLength(450);
    expect(s.asked).toEqual(['1@1', '2@1', '3@1']);
  });

  it('an empty first page is an empty answer after one request', async () => {
    const s = source(0, 100, 0);
    expect(await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100 })).toEqual([]);
    expect(s.asked).toEqual(['1@1']);
  });
});
