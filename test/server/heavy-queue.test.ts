/**
 * The download queue: at most `running` at once, `waiting` more served first come first served,
 * the rest refused (the route answers 503 + Retry-After); a release given twice frees one place.
 */
import { describe, expect, it } from 'vitest';
import { createHeavyQueue } from '../../src/server/heavy-queue.ts';

describe('heavy queue', () => {
  it('runs 2, keeps 2 in line in arrival order, refuses the 5th; each release lets the next in', async () => {
    const q = createHeavyQueue({ running: 2, waiting: 2 });
    const order: string[] = [];
    const a = await q.enter()!;
    const b = await q.enter()!;
    const c = q.enter()!.then((rel) => (order.push('c'), rel));
    const d = q.enter()!.then((rel) => (order.push('d'), rel));
    expect(q.enter()).toBeNull();
    expect([q.active, q.queued]).toEqual([2, 2]);
    expect(q.retryAfterS()).toBeGreaterThanOrEqual(1);
    a();
    a(); // a second release of the same place frees nothing more
    const relC = await c;
    expect(order).toEqual(['c']);
    expect([q.active, q.queued]).toEqual([2, 1]);
    b();
    const relD = await d;
    expect(order).toEqual(['c', 'd']);
    relC();
    relD();
    expect([q.active, q.queued]).toEqual([0, 0]);
    expect(q.enter()).not.toBeNull();
  });

  it('refuses settings that could never run anything', () => {
    expect(() => createHeavyQueue({ running: 0, waiting: 1 })).toThrow(/running ≥ 1/);
  });
});
