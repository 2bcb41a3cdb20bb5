/**
 * `fleetsync simulate --page-fault KIND[:PAGE][@PATH] --page-limit N`: a person can reproduce
 * pages that do not add up by hand; a bad value is a usage error naming the kinds.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { simulateCommand } from '../../src/commands/simulate.ts';
import { FleetsyncError } from '../../src/errors.ts';

const AUTH = { authorization: `Basic ${Buffer.from('demo:demo-main').toString('base64')}` };

async function start(values: Record<string, string>) {
  const stop = new AbortController();
  let out = '';
  const running = simulateCommand.run(
    { values, positionals: [] },
    {
      now: Date.now,
      argv: [],
      env: {},
      stdout: (t) => (out += t),
      stderr: () => undefined,
      stopSignal: stop.signal,
    },
  );
  for (let i = 0; i < 400 && !out.includes('Stop with'); i++) await new Promise((r) => setTimeout(r, 10));
  return { out: () => out, stop: async () => (stop.abort(), await running) };
}

describe('simulate --page-fault', () => {
  it('serves the page struck as the fault says, and prints it', async () => {
    const s = await start({
      port: '0',
      vehicles: '3',
      days: '20',
      'end-day': '2026-04-20',
      'page-fault': 'empty:2@/trips',
      'page-limit': '5',
    });
    try {
      expect(s.out()).toContain('page fault: empty on page 2 of /trips, 5 records a page');
      const base = /listening: (\S+)/.exec(s.out())![1]!;
      const page = async (n: number) => {
        const q = new URLSearchParams({
          start_timestamp: '2026-04-10 00:00:00',
          end_timestamp: '2026-04-19 23:59:59',
          page: String(n),
          limit: '500',
        });
        const r = await request(`${base}/trips?${q.toString()}`, { headers: AUTH });
        return (await r.body.json()) as { data: unknown[]; meta: { per_page: number; total: number } };
      };
      const [one, two, three] = [await page(1), await page(2), await page(3)];
      expect(one.meta.total).toBeGreaterThan(10);
      expect([one.data.length, one.meta.per_page]).toEqual([5, 5]);
      expect(two.data).toEqual([]);
      expect(three.data).toHaveLength(5);
    } finally {
      await s.stop();
    }
  });

  it('names the kinds when the value is wrong', async () => {
    const e = await simulateCommand
      .run(
        { values: { 'page-fault': 'sideways' }, positionals: [] },
        {
          now: Date.now,
          argv: [],
          env: {},
          stdout: () => undefined,
          stderr: () => undefined,
          stopSignal: AbortSignal.abort(),
        },
      )
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FleetsyncError);
    expect((e as FleetsyncError).code).toBe('E_USAGE');
    expect((e as Error).message).toBe(
      '--page-fault must be KIND[:PAGE][@PATH] with KIND one of short, empty, repeat, total, shift_late, shift_early and PAGE 2 or more, e.g. short:2@/trips (got "sideways")',
    );
  });
});
