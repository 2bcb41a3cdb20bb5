/** The fail-fast settings (issue 13): breaker bounds and the log format, each bad value named. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_BREAKER_FAILURES, DEFAULT_BREAKER_MS } from '../src/defaults.ts';
import { isFleetsyncError } from '../src/errors.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (isFleetsyncError(e, 'E_CONFIG')) return (e.details?.problems as string[]) ?? [];
    throw e;
  }
  return [];
}

describe('breaker and log settings', () => {
  it('default to 20 failures, 2 minutes and text lines', () => {
    const c = loadConfig({});
    expect([c.breakerFailures, c.breakerMs, c.logFormat]).toEqual([
      DEFAULT_BREAKER_FAILURES,
      DEFAULT_BREAKER_MS,
      'text',
    ]);
    expect([DEFAULT_BREAKER_FAILURES, DEFAULT_BREAKER_MS]).toEqual([20, 120_000]);
  });

  it('take plain whole numbers and json', () => {
    const c = loadConfig({
      FLEETSYNC_BREAKER_FAILURES: '5',
      FLEETSYNC_BREAKER_MS: '30000',
      FLEETSYNC_LOG_FORMAT: 'json',
    });
    expect([c.breakerFailures, c.breakerMs, c.logFormat]).toEqual([5, 30_000, 'json']);
  });

  it('name each bad value at once', () => {
    for (const [env, re] of [
      [{ FLEETSYNC_BREAKER_FAILURES: '0' }, /^FLEETSYNC_BREAKER_FAILURES: must be between 1 and 10000$/],
      [
        { FLEETSYNC_BREAKER_FAILURES: '2e1' },
        /^FLEETSYNC_BREAKER_FAILURES: must be a whole number of requests/,
      ],
      [{ FLEETSYNC_BREAKER_MS: '500' }, /^FLEETSYNC_BREAKER_MS: must be between 1000 and 86400000 ms$/],
      [{ FLEETSYNC_BREAKER_MS: '2min' }, /^FLEETSYNC_BREAKER_MS: must be a whole number of milliseconds/],
      [{ FLEETSYNC_LOG_FORMAT: 'xml' }, /^FLEETSYNC_LOG_FORMAT: must be text or json$/],
    ] as const)
      expect(problems(env)).toEqual([expect.stringMatching(re)]);
    expect(
      problems({ FLEETSYNC_BREAKER_FAILURES: 'x', FLEETSYNC_BREAKER_MS: '-1', FLEETSYNC_LOG_FORMAT: 'yaml' }),
    ).toHaveLength(3);
  });
});
