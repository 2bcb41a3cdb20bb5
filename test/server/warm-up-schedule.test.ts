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
