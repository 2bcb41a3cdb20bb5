/**
 * A sync with a stop signal (the CLI's Ctrl-C, the server's shutdown) has many requests in flight
 * listening on it: Node must not print a "possible memory leak" warning to the user for that.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);

beforeAll(async () => {
  h = await startHarness({ fleet: { seed: 4, vehicles: 30, days: 70, endDay: '2026-04-20' } });
  process.on('warning', onWarning);
}, 60_000);
afterAll(async () => {
  process.off('warning', onWarning);
  await h?.close();
});

describe('the stop signal', () => {
  it('a full sync with a signal raises no MaxListenersExceededWarning', async () => {
    const stop = new AbortController();
    h.deps.signal = stop.signal;
    expect((await h.sync()).outcome).toBe('ok');
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual(
      [],
    );
  }, 60_000);
});
