/**
 * The request window the API receives: inclusive local bounds, and the endpoint caps checked on
 * the wall-clock span the server sees. Hand-worked at the DST changes of Europe/Berlin 2026
 * (29 March: 23 h day; 25 October: 25 h day).
 */
import { describe, expect, it } from 'vitest';
import { FleetsyncError } from '../../src/errors.ts';
import { CAP_24_HOURS, CAP_31_DAYS, localBounds } from '../../src/api/windows.ts';

const BERLIN = 'Europe/Berlin';
const ms = (iso: string) => Date.parse(iso);
const H = 3_600_000;

function refusal(fn: () => unknown): FleetsyncError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FleetsyncError);
    return e as FleetsyncError;
  }
  throw new Error('accepted');
}

describe('inclusive local bounds', () => {
  it('a local month is sent as its first second … its last second', () => {
    // October: 1 Oct 00:00 CEST = 30 Sep 22:00 UTC … 1 Nov 00:00 CET = 31 Oct 23:00 UTC (31 days + 1 h).
    expect(
      localBounds(ms('2026-09-30T22:00Z'), ms('2026-10-31T23:00Z'), BERLIN, CAP_31_DAYS, 'trips'),
    ).toEqual({
      start: '2026-10-01 00:00:00',
      end: '2026-10-31 23:59:59',
    });
  });

  it('the 25-hour fall-back day passes the 24 h cap; the 23-hour spring day too', () => {
    expect(
      localBounds(ms('2026-10-24T22:00Z'), ms('2026-10-25T23:00Z'), BERLIN, CAP_24_HOURS, 'visits'),
    ).toEqual({
      start: '2026-10-25 00:00:00',
      end: '2026-10-25 23:59:59',
    });
    expect(
      localBounds(ms('2026-03-28T23:00Z'), ms('2026-03-29T22:00Z'), BERLIN, CAP_24_HOURS, 'visits'),
    ).toEqual({
      start: '2026-03-29 00:00:00',
      end: '2026-03-29 23:59:59',
    });
  });

  it('the shortest window is one second', () => {
    expect(
      localBounds(ms('2026-05-01T10:00:00Z'), ms('2026-05-01T10:00:01Z'), 'UTC', CAP_24_HOURS, 'x'),
    ).toEqual({
      start: '2026-05-01 10:00:00',
      end: '2026-05-01 10:00:00',
    });
  });
});

describe('the caps', () => {
  it('exactly the cap passes; one second more is refused, naming the endpoint, the span and the cap', () => {
    const from = ms('2026-05-01T00:00:00Z');
    expect(localBounds(from, from + 24 * H, 'UTC', CAP_24_HOURS, 'visits').end).toBe('2026-05-01 23:59:59');
    const e = refusal(() => localBounds(from, from + 24 * H + 1000, 'UTC', CAP_24_HOURS, 'visits'));
    expect(e.code).toBe('E_WINDOW_CAP');
    expect(e.message).toBe(
      "visits: window 2026-05-01 00:00:00 … 2026-05-02 00:00:00 spans 24 h, over the endpoint's cap of 24 h",
    );
    expect(e.details).toEqual({
      endpoint: 'visits',
      fromMs: from,
      toMs: from + 24 * H + 1000,
      capMs: CAP_24_HOURS,
    });
  });

  it('32 local days are refused by the 31-day cap', () => {
    const e = refusal(() =>
      localBounds(ms('2026-04-30T22:00Z'), ms('2026-06-01T22:00Z'), BERLIN, CAP_31_DAYS, 'trips'),
    );
    expect(e.message).toBe(
      "trips: window 2026-05-01 00:00:00 … 2026-06-01 23:59:59 spans 768 h, over the endpoint's cap of 744 h",
    );
  });

  it.each([
    ['empty', ms('2026-05-01T10:00Z'), ms('2026-05-01T10:00Z')],
    ['shorter than a second', ms('2026-05-01T10:00Z'), ms('2026-05-01T10:00Z') + 999],
    ['inverted', ms('2026-05-02T10:00Z'), ms('2026-05-01T10:00Z')],
    ['not a time (from)', Number.NaN, ms('2026-05-01T10:00Z')],
    ['not a time (to)', ms('2026-05-01T10:00Z'), Number.POSITIVE_INFINITY],
  ])('an %s window is refused before anything is sent', (_what, from, to) => {
    const e = refusal(() => localBounds(from, to, 'UTC', CAP_24_HOURS, 'trips'));
    expect(e.code).toBe('E_WINDOW_CAP');
    expect(e.message).toBe(`trips: empty or inverted window [${from}, ${to})`);
    expect(e.details).toEqual({ endpoint: 'trips', fromMs: from, toMs: to });
  });
});
