/**
 * A property of paginate over thousands of seeded random lists: whatever the total, the page
 * size, the fan-out and the fault (a short page, an empty page before the last, a repeated
 * record, a page shifted a record late or early, a total that changed between pages — each with
 * or without the metadata bug on later pages, each lasting or gone after a retry), a read that
 * returns is exactly the list (order and the records listed twice included), and one that does not
 * fails E_INCOMPLETE. A healthy list, and a fault that is gone within the retries, always reads whole.
 * The faulty page source is written here, apart from the simulator's.
 */
import { describe, expect, it } from 'vitest';
import { paginate, type Page, type ReadTally } from '../../src/api/paginate.ts';
import { PAGE_RETRIES } from '../../src/defaults.ts';
import { isFleetsyncError } from '../../src/errors.ts';

/** mulberry32: a small seeded PRNG (numbers in [0, 1)). */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind =
  'none' | 'short' | 'empty' | 'repeat' | 'shift_late' | 'shift_early' | 'total_lost' | 'total_grew';
const KINDS: Kind[] = [
  'none',
  'short',
  'empty',
  'repeat',
  'shift_late',
  'shift_early',
  'total_lost',
  'total_grew',
];

interface Rec {
  id: number;
}

interface Case {
  truth: Rec[];
  serverMax: number;
  limit: number;
  parallel: number;
  kind: Kind;
  /** The page struck (≥ 2). */
  at: number;
  /** Asks of the page struck that see the fault (Infinity: every one). */
  lasts: number;
  /** Later pages' meta is garbage (the changelog's bug). */
  metaBug: boolean;
  /** Records listed twice (adjacent) by the API. */
  twice: number;
}

function randomCase(r: () => number): Case {
  const n = Math.floor(r() * (r() < 0.2 ? 12 : 400));
  const truth: Rec[] = [];
  let twice = 0;
  for (let i = 0; i < n; i++) {
    truth.push({ id: i });
    if (r() < 0.03) {
      truth.push({ id: i });
      twice++;
    }
  }
  const serverMax = 1 + Math.floor(r() * 60);
  return {
    truth,
    serverMax,
    limit: r() < 0.5 ? 500 : 1 + Math.floor(r() * 80),
    parallel: 1 + Math.floor(r() * 8),
    kind: KINDS[Math.floor(r() * KINDS.length)]!,
    at: 2 + Math.floor(r() * 4),
    lasts: r() < 0.6 ? Infinity : 1 + Math.floor(r() * PAGE_RETRIES),
    metaBug: r() < 0.4,
    twice,
  };
}

/** The list's page `page` at `size` a page, with honest meta. */
function pageOf(list: Rec[], page: number, size: number): Page<Rec> & { from: number } {
  const items = list.slice((page - 1) * size, page * size);
  const from = items.length ? (page - 1) * size + 1 : 0;
  return {
    items,
    from,
    meta: {
      current_page: page,
      per_page: size,
      last_page: Math.max(1, Math.ceil(list.length / size)),
      total: list.length,
      from,
      to: items.length ? from + items.length - 1 : 0,
    },
  };
}

/** A page source serving `c.truth` with its fault; counts the asks of each page. */
function source(c: Case) {
  const asks = new Map<string, number>();
  const fetchPage = async (page: number, limit: number): Promise<Page<Rec>> => {
    await new Promise((res) => setImmediate(res));
    const size = Math.min(limit, c.serverMax);
    const ask = (asks.get(`${page}@${size}`) ?? 0) + 1;
    asks.set(`${page}@${size}`, ask);
    const healthy = pageOf(c.truth, page, size);
    const struck = ask <= c.lasts;
    const last = healthy.meta!.last_page;
    let items = healthy.items;
    let meta = healthy.meta!;
    const next = c.truth.slice(page * size, page * size + 1);
    if (struck && page === c.at) {
      if (c.kind === 'short' && page < last) items = items.slice(0, Math.ceil(items.length / 2));
      if (c.kind === 'empty' && page < last) items = [];
      if (c.kind === 'repeat' && items.length && c.truth.length) items = [...items.slice(0, -1), c.truth[0]!];
      if (c.kind === 'shift_late' && items.length) items = [...items.slice(1), ...next];
      if (c.kind === 'shift_early' && items.length)
        items = [c.truth[(page - 1) * size - 1]!, ...items.slice(0, -1)];
    }
    // The list changed after page at - 1: it lost its first record, or gained one in front.
    if (struck && page >= c.at && c.kind === 'total_lost' && c.truth.length)
      ({ items, meta } = pageOf(c.truth.slice(1), page, size) as Page<Rec> & { meta: typeof meta });
    if (struck && page >= c.at && c.kind === 'total_grew')
      ({ items, meta } = pageOf([{ id: -1 }, ...c.truth], page, size) as Page<Rec> & { meta: typeof meta });
    if (page > 1 && c.metaBug) meta = { current_page: 1, last_page: 1, per_page: 15, total: 0 };
    return { items, meta };
  };
  return { fetchPage, asks };
}

describe('paginate, a property over random lists and faults', () => {
  it('never returns a read that differs from the list; fails E_INCOMPLETE otherwise', async () => {
    const r = prng(20_260_301);
    const seen = new Map<string, number>();
    for (let i = 0; i < 3_000; i++) {
      const c = randomCase(r);
      const s = source(c);
      let tally: ReadTally | null = null;
      const what = `case ${i}: ${JSON.stringify({ ...c, truth: c.truth.length })}`;
      const got = await paginate(s.fetchPage, {
        endpoint: 'GET /x',
        limit: c.limit,
        parallel: c.parallel,
        key: (x) => String(x.id),
        onTally: (t) => (tally = t),
      }).catch((e: unknown) => e);
      // A page the same as the one before (length, first and last record) is the server ignoring
      // `page`: E_PAYLOAD at once (a page of one record listed twice, or pushed back by one).
      const repeats = isFleetsyncError(got, 'E_PAYLOAD') && /repeats page/.test(got.message);
      const outcome = Array.isArray(got)
        ? 'read'
        : isFleetsyncError(got, 'E_INCOMPLETE') || repeats
          ? 'incomplete'
          : 'other';
      seen.set(`${c.kind}/${outcome}`, (seen.get(`${c.kind}/${outcome}`) ?? 0) + 1);
      expect(outcome, `${what}: ${String(got)}`).not.toBe('other');
      if (Array.isArray(got)) {
        expect(got, what).toEqual(c.truth);
        expect(tally, what).toEqual({
          announced: c.truth.length,
          kept: c.truth.length - c.twice,
          duplicates: c.twice,
        });
      } else expect(tally, what).toBeNull();
      // No page asked more than once plus its retries.
      for (const [, n] of s.asks) expect(n, what).toBeLessThanOrEqual(1 + PAGE_RETRIES);
      // Reads whole: a healthy list, or a fault gone within the retries that shows on the page
      // struck (a page shifted late, or a changed total under the metadata bug, shows only on a
      // later page, once the page struck was taken: that read fails, and the window is pulled
      // again). A record listed twice across a page boundary looks like a page shifted early; a
      // read at a smaller page size whose page holds two places before it and its place tells
      // them apart (when that read is not struck by the fault as well).
      const pageSize = Math.min(c.limit, c.serverMax);
      const cannotTell = (j: number) =>
        !Array.from({ length: Math.max(0, pageSize - 3) }, (_, s) => s + 3).some(
          (s) => (j - 1) % s >= 1 && (j - 1) % s <= s - 2,
        );
      const boundaryTwice = c.truth.some(
        (x, j) =>
          j > 0 && j % pageSize === 0 && c.truth[j - 1]!.id === x.id && (cannotTell(j) || c.kind !== 'none'),
      );
      // (At one record a page, a repeated or early page is the page before it: E_PAYLOAD at once.)
      const showsOnPage =
        ['short', 'empty'].includes(c.kind) ||
        (['repeat', 'shift_early'].includes(c.kind) && pageSize > 1) ||
        (c.kind.startsWith('total') && !c.metaBug && pageSize > 1);
      if ((c.kind === 'none' || (c.lasts <= PAGE_RETRIES && showsOnPage)) && !boundaryTwice)
        expect(outcome, `${what}: ${String(got)}`).toBe('read');
    }
    // every fault was met and caught, and lists read whole
    for (const k of KINDS.filter((x) => x !== 'none'))
      expect(seen.get(`${k}/incomplete`), k).toBeGreaterThan(20);
    expect(seen.get('none/read')).toBeGreaterThan(200);
  }, 60_000);
});
