import { afterEach, describe, expect, it } from 'vitest';
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
import { paginate, TooManyRecords, type Page, type ReadTally } from '../../src/api/paginate.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { fakeClock, json, PASSWORD, startServer, type TestServer } from '../helpers/api.ts';

let srv: TestServer | undefined;
let client: FleetClient | undefined;
afterEach(async () => {
  await client?.close();
  await srv?.close();
  srv = client = undefined;
});

const geofence = (i: number) => ({ geofence_id: `g-${i}`, name: `G${i}`, is_toll: false });

type MetaFor = (
  page: number,
  perPage: number,
  lastPage: number,
  total: number,
) => Record<string, unknown> | undefined;
const goodMeta: MetaFor = (page, perPage, lastPage, total) => ({
  current_page: page,
  per_page: perPage,
  last_page: lastPage,
  total,
  from: (page - 1) * perPage + 1,
  to: Math.min(total, page * perPage),
});

/** A paged API of `total` geofences that clamps `limit` to `maxPerPage`, with pluggable meta. */
async function pagedApi(total: number, maxPerPage: number, meta: MetaFor = goodMeta, ignorePage = false) {
  const clock = fakeClock();
  srv = await startServer((r, res) => {
    const page = ignorePage ? 1 : Number(r.query.get('page') ?? 1);
    const perPage = Math.min(maxPerPage, Number(r.query.get('limit') ?? 10));
    const items = Array.from({ length: total }, (_, i) => geofence(i)).slice(
      (page - 1) * perPage,
      page * perPage,
    );
    json(res, 200, {
      data: items,
      meta: meta(page, perPage, Math.max(1, Math.ceil(total / perPage)), total),
    });
  }, clock.now);
  client = createFleetClient({
    baseUrl: srv.baseUrl,
    username: 'acme',
    password: PASSWORD,
    timezone: 'UTC',
    now: clock.now,
    sleep: clock.sleep,
  });
  return { srv, client };
}

describe('pagination', () => {
  it('asks for limit=500 and walks every page', async () => {
    const { srv, client } = await pagedApi(1200, 500);
    const got = await client.listGeofences();
    expect(got).toHaveLength(1200);
    expect(new Set(got.map((g) => g.geofence_id)).size).toBe(1200);
    expect(srv.seen.map((s) => [s.query.get('page'), s.query.get('limit')])).toEqual([
      ['1', '500'],
      ['2', '500'],
      ['3', '500'],
    ]);
  });

  it('follows a server that clamps the page size (meta.per_page)', async () => {
    const { srv, client } = await pagedApi(250, 100);
    expect(await client.listGeofences()).toHaveLength(250);
    expect(srv.seen).toHaveLength(3);
  });

  it('stops after an exactly full last page when meta says so (no extra request)', async () => {
    const { srv, client } = await pagedApi(200, 100);
    expect(await client.listGeofences()).toHaveLength(200);
    expect(srv.seen).toHaveLength(2);
  });

  it('survives page-2 meta that claims it is the last page (the changelog bug)', async () => {
    const broken: MetaFor = (page, perPage, lastPage, total) =>
      page === 1
        ? goodMeta(page, perPage, lastPage, total)
        : { current_page: 1, last_page: 1, per_page: 15, total: 0 };
    const { client } = await pagedApi(350, 100, broken);
    expect(await client.listGeofences()).toHaveLength(350);
  });

  it('terminates when last_page is far too high, or meta is missing', async () => {
    const tooHigh: MetaFor = (page, perPage, _l, total) => ({
      ...goodMeta(page, perPage, 1, total),
      last_page: 999,
    });
    const a = await pagedApi(200, 100, tooHigh);
    expect(await a.client.listGeofences()).toHaveLength(200);
    expect(a.srv.seen).toHaveLength(3); // the third page is empty
    await a.client.close();
    await a.srv.close();
    const b = await pagedApi(700, 500, () => undefined);
    expect(await b.client.listGeofences()).toHaveLength(700);
    expect(b.srv.seen).toHaveLength(2);
  });

  it('fails with E_PAYLOAD instead of looping when the server ignores `page`', async () => {
    const { srv, client } = await pagedApi(1000, 100, goodMeta, true);
    const e = await client.listGeofences().catch((x: unknown) => x);
    expect(isFleetsyncError(e, 'E_PAYLOAD')).toBe(true);
    expect(srv.seen).toHaveLength(2);
  });
});

describe('pagination fan-out (paginate)', () => {
  /** A page source of `actual` items that reports `claimed` as its total, counting requests in flight. */
  function source(actual: number, claimed = actual, perPage = 100) {
    const asked: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const fetchPage = async (page: number): Promise<Page<number>> => {
      asked.push(page);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      const items = Array.from({ length: actual }, (_, i) => i).slice((page - 1) * perPage, page * perPage);
      // Page 1 claims `claimed`; later pages tell the truth.
      const total = page === 1 ? claimed : actual;
      const lastPage = Math.max(1, Math.ceil(total / perPage));
      return { items, meta: { current_page: page, per_page: perPage, last_page: lastPage, total } };
    };
    return { fetchPage, asked, maxInFlight: () => maxInFlight };
  }

  it('asks pages 3 and later several at once once page 1 gives the total, in order, none twice', async () => {
    const s = source(2_050);
    const got = await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, parallel: 8 });
    expect(got).toEqual(Array.from({ length: 2_050 }, (_, i) => i));
    expect(s.asked.slice(0, 2)).toEqual([1, 2]);
    expect([...s.asked].sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(s.maxInFlight()).toBe(8);
  });

  // Page 2's own meta (its current_page and per_page are page 2's) says another total than page 1:
  // the total changed between pages; page 2 is asked again twice, then the read fails.
  for (const [name, actual, claimed, message] of [
    [
      'too high',
      450,
      5_000,
      'GET /x: 200 of 5,000 records announced; page 2 said the total is 450 (asked 3 times)',
    ],
    [
      'too low',
      1_000,
      300,
      'GET /x: 200 of 300 records announced; page 2 said the total is 1,000 (asked 3 times)',
    ],
  ] as const)
    it(`a page-1 total that is ${name} does not add up: E_INCOMPLETE after asking page 2 again`, async () => {
      const s = source(actual, claimed);
      const e = await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, parallel: 8 }).catch(
        (x: unknown) => x,
      );
      expect(isFleetsyncError(e, 'E_INCOMPLETE')).toBe(true);
      expect((e as Error).message).toBe(message);
      expect(s.asked).toEqual([1, 2, 2, 2]);
    });

  it('maxRecords: a page-1 total above it stops after page 1 with TooManyRecords (the total)', async () => {
    const s = source(2_050);
    const e = await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, maxRecords: 1_000 }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TooManyRecords);
    expect((e as TooManyRecords).total).toBe(2_050);
    expect(s.asked).toEqual([1]);
    // At or under the bound: every record, as without it.
    expect(
      await paginate(source(1_000).fetchPage, { endpoint: 'GET /x', limit: 100, maxRecords: 1_000 }),
    ).toHaveLength(1_000);
  });

  it("maxRecords with a page-1 total too low: page 2's own total above it stops with TooManyRecords", async () => {
    const s = source(1_000, 300);
    const e = await paginate(s.fetchPage, { endpoint: 'GET /x', limit: 100, maxRecords: 450 }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TooManyRecords);
    expect((e as TooManyRecords).total).toBe(1_000);
    expect(s.asked).toEqual([1, 2]);
  });

  it('a record listed twice across a page boundary: one read at another page size tells it from a shifted page', async () => {
    // 0 1 2 3 4 | 4 5 6 7 8 | 9 — record 4 listed twice, the second time first on page 2
    const list = [0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9];
    const asked: string[] = [];
    const serve =
      (shifted: boolean) =>
      async (page: number, limit: number): Promise<Page<number>> => {
        const size = Math.min(limit, 5);
        asked.push(`${page}@${size}`);
        // shifted: the same pages, but the list really is 0..10 and page 2 came one early
        const src = shifted ? [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : list;
        const items =
          shifted && page === 2 && size === 5 ? [4, 5, 6, 7, 8] : src.slice((page - 1) * size, page * size);
        const total = src.length;
        return {
          items,
          meta: { current_page: page, per_page: size, last_page: Math.ceil(total / size), total },
        };
      };
    let tally: ReadTally | null = null;
    const got = await paginate(serve(false), { endpoint: 'GET /x', onTally: (t) => (tally = t) });
    expect(got).toEqual(list);
    expect(tally).toEqual({ announced: 11, kept: 10, duplicates: 1 });
    // page 2 at 3 a page holds places 3..5: 3 4 4, as pages 1 and 2 said (two places before the boundary)
    expect(asked).toEqual(['1@5', '2@5', '2@3', '3@5']);
    asked.length = 0;
    const e = await paginate(serve(true), { endpoint: 'GET /x' }).catch((x: unknown) => x);
    expect(isFleetsyncError(e, 'E_INCOMPLETE')).toBe(true);
    expect((e as Error).message).toBe(
      'GET /x: 10 of 11 records announced; page 2 repeated a record of an earlier page (item 1) where another was due (asked 3 times)',
    );
    expect(asked).toEqual(['1@5', '2@5', '2@3', '2@5', '2@3', '2@5', '2@3']);
  });
});
