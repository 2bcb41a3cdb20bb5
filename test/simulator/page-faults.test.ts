/**
 * The simulator's pages that do not add up (page-faults.ts), over HTTP: each kind strikes the page
 * it names, on every request, and only while it is set; the pages expected are worked out here from
 * the healthy answer's records, not by the fault code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageFault } from '../../src/simulator/page-faults.ts';
import { startTestSim, type Item, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim({ startAt: Date.parse('2026-04-21T03:00:00Z') });
});
afterAll(() => t.sim.close());

const WINDOW = { start_timestamp: '2026-04-01 00:00:00', end_timestamp: '2026-04-20 23:59:59' };
const id = (x: Item) => x.trip_id as string;

/** Every page of the trips window at `limit` a page, as answered now. */
async function pages(limit: number) {
  const out: { ids: string[]; meta: Record<string, number | boolean> }[] = [];
  for (let page = 1; ; page++) {
    const r = await t.get('/trips', { ...WINDOW, page: String(page), limit: String(limit) });
    expect(r.status).toBe(200);
    const b = r.json();
    out.push({ ids: b.data.map(id), meta: b.meta });
    if (page >= Number(b.meta.last_page)) return out;
  }
}

describe('pages that do not add up (simulator)', () => {
  let healthy: string[];
  let L: number;
  beforeAll(async () => {
    t.sim.setFaults({});
    const all = await pages(500);
    healthy = all.flatMap((p) => p.ids);
    L = 10;
    expect(healthy.length).toBeGreaterThan(4 * L); // several pages of 10
  });
  const page = (n: number) => healthy.slice((n - 1) * L, n * L);

  it('pageLimit clamps the page size (meta.per_page says so) and keeps the records', async () => {
    t.sim.setFaults({ pageLimit: L });
    const got = await pages(500);
    expect(got[0]!.meta.per_page).toBe(L);
    expect(got.flatMap((p) => p.ids)).toEqual(healthy);
  });

  const cases: [PageFault, (n: number) => string[]][] = [
    [{ kind: 'short' }, (n) => (n === 2 ? page(2).slice(0, L / 2) : page(n))],
    [{ kind: 'empty', page: 3 }, (n) => (n === 3 ? [] : page(n))],
    [{ kind: 'repeat' }, (n) => (n === 2 ? [...page(2).slice(0, -1), healthy[0]!] : page(n))],
    [{ kind: 'shift_late' }, (n) => (n === 2 ? healthy.slice(L + 1, 2 * L + 1) : page(n))],
    [{ kind: 'shift_early' }, (n) => (n === 2 ? healthy.slice(L - 1, 2 * L - 1) : page(n))],
    // the list lost its first record after page 1: page 2 and later are one record late
    [{ kind: 'total' }, (n) => (n === 1 ? page(1) : healthy.slice((n - 1) * L + 1, n * L + 1))],
  ];
  for (const [fault, expected] of cases)
    it(`${fault.kind}${fault.page ? ` on page ${fault.page}` : ''}: the page struck, every time; the others as healthy`, async () => {
      t.sim.setFaults({ pageLimit: L, pageFault: fault });
      const got = await pages(L);
      const last = Math.ceil(healthy.length / L);
      for (let n = 1; n <= last; n++) expect(got[n - 1]?.ids ?? [], `page ${n}`).toEqual(expected(n));
      // asked again, the page struck answers the same
      const again = (
        await t.get('/trips', { ...WINDOW, page: String(fault.page ?? 2), limit: String(L) })
      ).json();
      expect(again.data.map(id)).toEqual(expected(fault.page ?? 2));
      // meta is the whole list's, except the total of a list that changed
      expect(got[1]!.meta.total).toBe(fault.kind === 'total' ? healthy.length - 1 : healthy.length);
      expect(got[0]!.meta.total).toBe(healthy.length);
    });

  it('strikes only the route it names, and stops when the faults are cleared', async () => {
    t.sim.setFaults({ pageLimit: L, pageFault: { kind: 'empty', path: '/geofences' } });
    expect((await pages(L)).flatMap((p) => p.ids)).toEqual(healthy);
    t.sim.setFaults({ pageLimit: L, pageFault: { kind: 'empty' } });
    expect((await pages(L)).flatMap((p) => p.ids)).not.toEqual(healthy);
    t.sim.setFaults({});
    expect((await pages(L)).flatMap((p) => p.ids)).toEqual(healthy);
  });
});
