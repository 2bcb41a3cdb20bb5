/**
 * How long a 429 makes a rate bucket wait, worked by hand from the documented headers
 * (X-RateLimit-Retry-At in epoch seconds, X-RateLimit-Retry-After-Seconds) for the real 60 s window:
 * base429Ms 2 s, minPauseMs 1 s, maxPauseMs 180 s; a random source of 0.5 makes the backoff
 * fallback exact (attempt 0: 1.5 s; attempt 2: 6 s).
 */
import { describe, expect, it } from 'vitest';
import { backoffMs, defaultRetryPolicy, fullJitterMs, pauseAfter429 } from '../../src/api/retry.ts';

const policy = defaultRetryPolicy(60_000);
const NOW = 1_790_000_000_000; // a whole second, so Retry-At in seconds is exact
const half = () => 0.5;
const pause = (headers: Record<string, string | string[] | undefined>, nth = 1) =>
  pauseAfter429(headers, nth, NOW, policy, half);

describe('pauseAfter429: the bucket pause a 429 asks for', () => {
  it('uses the policy of the real window', () => {
    expect(policy).toMatchObject({ base429Ms: 2_000, minPauseMs: 1_000, maxPauseMs: 180_000 });
  });

  it.each([
    ['Retry-At in epoch seconds', { 'x-ratelimit-retry-at': String(NOW / 1000 + 30) }, 30_000],
    ['Retry-At in milliseconds', { 'x-ratelimit-retry-at': String(NOW + 30_000) }, 30_000],
    ['Retry-After-Seconds', { 'x-ratelimit-retry-after-seconds': '12' }, 12_000],
    [
      'both: the later of the two',
      { 'x-ratelimit-retry-at': String(NOW / 1000 + 30), 'x-ratelimit-retry-after-seconds': '12' },
      30_000,
    ],
    [
      'both, the other way round',
      { 'x-ratelimit-retry-at': String(NOW / 1000 + 5), 'x-ratelimit-retry-after-seconds': '12' },
      12_000,
    ],
    ['a repeated header: the first value', { 'x-ratelimit-retry-after-seconds': ['20', '5'] }, 20_000],
    ['under the floor: the floor', { 'x-ratelimit-retry-after-seconds': '0.2' }, 1_000],
  ])('%s → waits as asked, no anomaly', (_, headers, delayMs) => {
    expect(pause(headers)).toEqual({ delayMs, anomaly: null });
  });

  it.each([
    [
      'Retry-At in the past',
      { 'x-ratelimit-retry-at': String(NOW / 1000 - 5) },
      'Retry-At not in the future',
    ],
    ['Retry-At negative', { 'x-ratelimit-retry-at': '-5' }, 'Retry-At not in the future'],
    ['Retry-At not a number', { 'x-ratelimit-retry-at': 'soon' }, 'Retry-At not numeric'],
    ['Retry-After zero', { 'x-ratelimit-retry-after-seconds': '0' }, 'Retry-After-Seconds not positive'],
    [
      'Retry-After not a number',
      { 'x-ratelimit-retry-after-seconds': '1e3' },
      'Retry-After-Seconds not numeric',
    ],
    ['no headers at all', {}, 'no retry headers'],
  ])('%s → the backoff (1.5 s), saying why', (_, headers, why) => {
    expect(pause(headers)).toEqual({ delayMs: 1_500, anomaly: `${why}; using backoff` });
  });

  it('a usable header beside a broken one is used, and the broken one is still reported', () => {
    expect(pause({ 'x-ratelimit-retry-at': 'soon', 'x-ratelimit-retry-after-seconds': '12' })).toEqual({
      delayMs: 12_000,
      anomaly: 'Retry-At not numeric',
    });
  });

  it('from the third 429 of a request, "retry in 1 s" waits at least the backoff of that repeat (6 s)', () => {
    expect(pause({ 'x-ratelimit-retry-after-seconds': '1' }, 3)).toEqual({ delayMs: 6_000, anomaly: null });
    expect(pause({ 'x-ratelimit-retry-after-seconds': '1' }, 1)).toEqual({ delayMs: 1_000, anomaly: null });
  });

  it('an absurd wait is capped at 3 windows and says what was asked', () => {
    expect(pause({ 'x-ratelimit-retry-after-seconds': '86400' })).toEqual({
      delayMs: 180_000,
      anomaly: 'asked for 86400 s, capped',
    });
    expect(pause({ 'x-ratelimit-retry-at': String(NOW / 1000 + 3600) })).toEqual({
      delayMs: 180_000,
      anomaly: 'asked for 3600 s, capped',
    });
  });
});

describe('backoff and full jitter', () => {
  it('equal jitter: between half and all of base × 2^attempt, capped', () => {
    expect(backoffMs(1, 1_000, 60_000, () => 0)).toBe(1_000);
    expect(backoffMs(1, 1_000, 60_000, () => 1)).toBe(2_000);
    expect(backoffMs(10, 1_000, 5_000, () => 1)).toBe(5_000);
    expect(backoffMs(-2, 1_000, 60_000, () => 1)).toBe(1_000);
  });

  it('full jitter: anywhere from 0 to base × 2^attempt, capped', () => {
    expect(fullJitterMs(2, 1_000, 60_000, () => 0)).toBe(0);
    expect(fullJitterMs(2, 1_000, 60_000, () => 0.25)).toBe(1_000);
    expect(fullJitterMs(10, 1_000, 5_000, () => 1)).toBe(5_000);
    expect(fullJitterMs(-3, 1_000, 60_000, () => 1)).toBe(1_000);
  });
});
