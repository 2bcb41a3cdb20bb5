/**
 * The warm-up's order of work (src/server/warm-up.ts): it starts no call while a dashboard call is
 * in flight, reads a paged list whole where the dashboard does (the first page only elsewhere), starts again from its first call when
 * triggered meanwhile, and stops without starting another call. The calls here are recorded, not
 * run: what is checked is the order and the timing of the warm-up's own decisions.
 */
import { describe, expect, it } from 'vitest';
import { createWarmUp, type WarmUpCall } from '../../src/server/warm-up.ts';

function route(calls: WarmUpCall[], totals: Record<string, number> = {}) {
  const ran: string[] = [];
  let inFlight = 0;
  const waiters: (() => void)[] = [];
  let gate: Promise<void> = Promise.resolve();
  return {
    ran,
    setInFlight(n: number) {
      inFlight = n;
      if (n === 0) for (const w of waiters.splice(0)) w();
    },
    hold() {
      let open = () => {};
      gate = new Promise<void>((r) => (open = r));
      return () => open();
    },
    attach: {
      calls: async () => calls,
      inFlight: () => inFlight,
      idle: () => new Promise<void>((r) => waiters.push(r)),
      run: async (c: WarmUpCall) => {
        ran.push(`${c.report}${c.query.offset ? `@${c.query.offset}/${c.query.limit}` : ''}`);
        await gate;
        const total = totals[c.report];
        return { total: total ?? 1, limit: total === undefined ? undefined : 1000 };
      },
    },
  };
}

describe('the warm-up', () => {
  it('starts no call while a dashboard call is in flight, then runs the pass in order, a list the page reads whole page by page', async () => {
    const r = route(
      [
        { report: 'vehicles', query: {}, allPages: true },
        { report: 'kpis', query: { from: '2026-08-01', to: '2026-10-05' } },
        // the page reads its first page only (a section drawn from it): the others are not computed
        { report: 'costs', query: { from: '2026-08-01', to: '2026-10-05' } },
      ],
      { vehicles: 2500, costs: 15000 },
    );
    const w = createWarmUp();
    const status: string[] = [];
    w.also(async () => void status.push('status'));
    w.attach(r.attach);
    r.setInFlight(1);
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 20));
    expect([...status, ...r.ran]).toEqual([]);
    r.setInFlight(0);
    await w.settled();
    expect([...status, ...r.ran]).toEqual([
      'status',
      'vehicles',
      'vehicles@1000/1000',
      'vehicles@2000/1000',
      'kpis',
      'costs',
    ]);
    expect(w.stats).toMatchObject({ passes: 1, calls: 6 });
  });

  it('a trigger during a pass starts it again from its first call once the running call is done', async () => {
    const r = route([
      { report: 'a', query: {} },
      { report: 'b', query: {} },
    ]);
    const w = createWarmUp();
    w.attach(r.attach);
    const open = r.hold();
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual(['a']);
    w.trigger('sync');
    w.trigger('sync'); // twice: one more pass, not two
    open();
    await w.settled();
    expect(r.ran).toEqual(['a', 'a', 'b']);
    expect(w.stats.passes).toBe(1); // the interrupted pass did not finish
  });

  it('a dashboard call for a call of the pass waits for the pass, which then does not wait for the dashboard', async () => {
    const period = { from: '2026-08-01', to: '2026-10-05' };
    const r = route(
      [
        { report: 'vehicles', query: {}, allPages: true },
        { report: 'top_vehicles', query: period },
        { report: 'kpis', query: period },
      ],
      { vehicles: 2000 },
    );
    const w = createWarmUp();
    w.attach(r.attach);
    r.setInFlight(1); // another dashboard call runs: the pass waits for it
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual([]);
    // not a call of the pass (another period, another report): the caller computes it
    expect(w.join('kpis', { from: '2026-08-01', to: '2026-09-30' })).toBeNull();
    expect(w.join('costs', period)).toBeNull();
    // the page's kpis (its query's keys in another order): waits for the pass, which makes it now
    const kpis = w.join('kpis', { to: '2026-10-05', from: '2026-08-01' })!;
    expect(w.join('vehicles', { offset: '1000', limit: '1000' })).toBeNull(); // not known before the first page
    await kpis;
    expect(r.ran).toContain('kpis');
    expect(w.stats.passes).toBe(0); // the rest waits for the dashboard's call in flight again
    r.setInFlight(0);
    await w.settled();
    expect([...r.ran].sort()).toEqual(['kpis', 'top_vehicles', 'vehicles', 'vehicles@1000/1000']);
    expect(w.join('kpis', period)).toBeNull(); // no pass: computed by the caller
  });

  it('two lanes while the dashboard waits: the first call waited for beside the pass’s own, in the pass’s order', async () => {
    const r = route(['a', 'b', 'c', 'd'].map((report) => ({ report, query: {} })));
    const w = createWarmUp();
    w.attach(r.attach);
    const open = r.hold();
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual(['a']); // held; nobody waits: one call at a time
    const waits = ['d', 'c'].map((c) => w.join(c, {})!);
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual(['a', 'c']); // the second lane: c before d, the pass's order
    open();
    await Promise.all(waits);
    await w.settled();
    expect([...r.ran].sort()).toEqual(['a', 'b', 'c', 'd']); // each made once
  });

  it('the next page of a list can be waited for once the page before it is made', async () => {
    const r = route([{ report: 'vehicles', query: {}, allPages: true }], { vehicles: 2000 });
    const w = createWarmUp();
    w.attach(r.attach);
    const open1 = r.hold();
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual(['vehicles']); // the first page, held
    expect(w.join('vehicles', { offset: '1000', limit: '1000' })).toBeNull();
    const open2 = r.hold(); // the second page will be held too
    const first = w.join('vehicles', {})!;
    open1();
    await first;
    // the page asks the second page once it has the first's answer: the pass has it ahead by then
    const second = w.join('vehicles', { offset: '1000', limit: '1000' });
    expect(second).not.toBeNull();
    open2();
    await second;
    expect(r.ran).toEqual(['vehicles', 'vehicles@1000/1000']);
    await w.settled();
  });

  it('a pass asked again (a sync committed) lets the calls waiting for it go to compute for themselves', async () => {
    const r = route(['a', 'b', 'c'].map((report) => ({ report, query: {} })));
    const w = createWarmUp();
    w.attach(r.attach);
    const open = r.hold();
    w.trigger('start');
    await new Promise((res) => setTimeout(res, 10));
    const b = w.join('b', {})!; // made by the second lane, held too
    await new Promise((res) => setTimeout(res, 10));
    expect(r.ran).toEqual(['a', 'b']);
    const c = w.join('c', {})!; // both lanes busy: waits
    w.trigger('sync');
    open();
    await Promise.all([b, c]);
    expect(r.ran).toEqual(['a', 'b']); // c let go before the interrupted pass made it
    await w.settled();
    expect(r.ran).toEqual(['a', 'b', 'a', 'b', 'c']);
  });

  it('stop while waiting for the dashboard: no call starts, and a later trigger does nothing', async () => {
    const r = route([{ report: 'a', query: {} }]);
    const w = createWarmUp();
    const steps: string[] = [];
    w.also(async () => void steps.push('status'));
    w.attach(r.attach);
    r.setInFlight(2);
    w.trigger('start');
    await w.stop();
    w.trigger('sync');
    r.setInFlight(0);
    await w.settled();
    expect(r.ran).toEqual([]);
    expect(steps).toEqual([]);
  });
});
