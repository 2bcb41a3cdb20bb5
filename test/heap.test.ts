/**
 * FLEETSYNC_SYNC_HEAP: a process that syncs (sync, worker, serve) keeps V8's heap near what it
 * holds (`small`, the default), unless told `fast`; other commands keep V8's defaults; a bad value is named by the
 * configuration check. The effect is shown on a real process: the same allocation pattern as a
 * sync (much short-lived garbage around a small live set) peaks far lower with the small heap.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { FleetsyncError } from '../src/errors.ts';

const HEAP = fileURLToPath(new URL('../src/heap.ts', import.meta.url));

/** A child that applies the heap setting for `command`, then churns: peak heap used, MB. */
function peakHeapMb(command: string, env: Record<string, string>): { applied: string; peakMb: number } {
  const script = `
    const { applySyncHeap } = await import(${JSON.stringify(HEAP)});
    const applied = applySyncHeap(${JSON.stringify(command)}, process.env);
    // Parsed pages held until their window is written (the last 100 pages, ~10 MB, live long
    // enough to reach the old generation), then dropped: 6,000 pages in all.
    const held = [];
    let peak = 0;
    for (let i = 0; i < 6000; i++) {
      held.push(
        Array.from({ length: 500 }, (_, k) => ({ id: 'trip-' + i + '-' + k, at: i * k, km: k / 3, s: 'x'.repeat(k % 40) + i })),
      );
      if (held.length > 100) held.shift();
      if (i % 10 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    process.stdout.write(JSON.stringify({ applied: String(applied), peakMb: peak / 2 ** 20 }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, FLEETSYNC_SYNC_HEAP: '', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { applied: string; peakMb: number };
}

/** What the setting is for each command and environment, asked in one child (applying it sets a V8 flag). */
function appliedFor(cases: [string, Record<string, string>][]): string[] {
  const script = `
    const { applySyncHeap } = await import(${JSON.stringify(HEAP)});
    const cases = ${JSON.stringify(cases)};
    process.stdout.write(JSON.stringify(cases.map(([c, env]) => String(applySyncHeap(c, env)))));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('FLEETSYNC_SYNC_HEAP', () => {
  it('is small by default, fast when asked; anything else is named', () => {
    expect(loadConfig({}).syncHeap).toBe('small');
    expect(loadConfig({ FLEETSYNC_SYNC_HEAP: 'fast' }).syncHeap).toBe('fast');
    let err: unknown;
    try {
      loadConfig({ FLEETSYNC_SYNC_HEAP: 'tiny' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FleetsyncError);
    expect((err as Error).message).toMatch(/FLEETSYNC_SYNC_HEAP: must be small or fast/);
  });

  it('a sync process with the small heap peaks far below one with V8 defaults', () => {
    const small = peakHeapMb('sync', {});
    const fast = peakHeapMb('sync', { FLEETSYNC_SYNC_HEAP: 'fast' });
    expect([small.applied, fast.applied]).toEqual(['small', 'fast']);
    expect(small.peakMb).toBeLessThan(fast.peakMb / 1.5);
    // The dashboard's process keeps its heap smaller still: --optimize-for-size, bound by its RSS;
    // a sync or a worker grows its heap 10 % between full collections, for less CPU.
    const serve = peakHeapMb('serve', {});
    expect(serve.applied).toBe('small');
    expect(serve.peakMb).toBeLessThan(small.peakMb / 1.2); // ~40 MB against ~60 and ~110 here
    // The same setting, applied or not by command (no churn needed: the flag's effect is above).
    expect(
      appliedFor([
        ['worker', {}],
        ['serve', {}],
        ['serve', { FLEETSYNC_SYNC_HEAP: 'fast' }],
        ['export', {}],
      ]),
    ).toEqual(['small', 'small', 'fast', 'null']);
  }, 120_000);
});
