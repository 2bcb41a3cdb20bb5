/**
 * The window grids the planner lays over a range, checked against hand-worked instants at the
 * edges where a grid goes wrong: month ends, a range that starts or ends inside a month or a day,
 * and the DST changes (Europe/Berlin 2026: 29 March 01:00 UTC the clock jumps 02:00 → 03:00,
 * 25 October 01:00 UTC it falls back 03:00 → 02:00; Australia/Sydney 2026: 5 April 16:00 UTC the
 * clock falls back 03:00 → 02:00). Every instant below is written out in UTC by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  cutAt,
  dayRange,
  dayWindows,
  monthWindows,
  settledCut,
  splitAtMidnight,
  splitEvenly,
  windowLabel,
  type Window,
} from '../../src/sync/windows.ts';

const BERLIN = 'Europe/Berlin';
const SYDNEY = 'Australia/Sydney';
const ms = (iso: string) => Date.parse(iso);
/** Windows as `start/end` in UTC, the way a reader checks them against a calendar. */
const show = (ws: Window[] | null) =>
  ws?.map(
    (w) =>
      `${new Date(w.startMs).toISOString().slice(0, 16)}/${new Date(w.endMs).toISOString().slice(0, 16)}`,
  ) ?? null;
const hours = (w: Window) => (w.endMs - w.startMs) / 3_600_000;

describe('month grid', () => {
  it('a range from mid-January to the end of March: a short first window, then whole local months, no empty April', () => {
    // 15 Jan 12:00 CET = 11:00 UTC; 1 Apr 00:00 CEST = 31 Mar 22:00 UTC.
    const ws = monthWindows(ms('2026-01-15T11:00Z'), ms('2026-03-31T22:00Z'), BERLIN);
    expect(show(ws)).toEqual([
      '2026-01-15T11:00/2026-01-31T23:00',
      '2026-01-31T23:00/2026-02-28T23:00',
      '2026-02-28T23:00/2026-03-31T22:00',
    ]);
    // March loses the hour of the spring change; February has 28 days.
    expect(ws.map(hours)).toEqual([16 * 24 + 12, 28 * 24, 31 * 24 - 1]);
  });

  it('October gains the fall-back hour (31 days + 1 h of instants), November starts at local midnight', () => {
    const ws = monthWindows(ms('2026-09-30T22:00Z'), ms('2026-11-30T23:00Z'), BERLIN);
    expect(show(ws)).toEqual(['2026-09-30T22:00/2026-10-31T23:00', '2026-10-31T23:00/2026-11-30T23:00']);
    expect(ws.map(hours)).toEqual([31 * 24 + 1, 30 * 24]);
  });

  it('a range that ends inside a month clips the last window there', () => {
    const ws = monthWindows(ms('2026-01-31T23:00Z'), ms('2026-02-10T12:00Z'), BERLIN);
    expect(show(ws)).toEqual(['2026-01-31T23:00/2026-02-10T12:00']);
  });

  it('a range inside one local month is one window, itself', () => {
    const ws = monthWindows(ms('2026-05-03T08:00Z'), ms('2026-05-04T08:00Z'), BERLIN);
    expect(show(ws)).toEqual(['2026-05-03T08:00/2026-05-04T08:00']);
  });

  it('the southern hemisphere: Sydney’s April gains its fall-back hour', () => {
    // 1 Apr 00:00 AEDT (+11) = 31 Mar 13:00 UTC; 1 May 00:00 AEST (+10) = 30 Apr 14:00 UTC.
    const ws = monthWindows(ms('2026-03-31T13:00Z'), ms('2026-04-30T14:00Z'), SYDNEY);
    expect(show(ws)).toEqual(['2026-03-31T13:00/2026-04-30T14:00']);
    expect(hours(ws[0]!)).toBe(30 * 24 + 1);
  });

  it('an empty range has no windows', () => {
    expect(monthWindows(ms('2026-05-03T08:00Z'), ms('2026-05-03T08:00Z'), BERLIN)).toEqual([]);
  });
});

describe('day grid', () => {
  it('the 25-hour fall-back day is split in two (13 h + 12 h, at a whole hour); its neighbours stay whole', () => {
    // 24 Oct 00:00 CEST = 23 Oct 22:00 UTC … 27 Oct 00:00 CET = 26 Oct 23:00 UTC.
    const ws = dayWindows(ms('2026-10-23T22:00Z'), ms('2026-10-26T23:00Z'), BERLIN);
    expect(show(ws)).toEqual([
      '2026-10-23T22:00/2026-10-24T22:00',
      '2026-10-24T22:00/2026-10-25T11:00',
      '2026-10-25T11:00/2026-10-25T23:00',
      '2026-10-25T23:00/2026-10-26T23:00',
    ]);
    expect(ws.map(hours)).toEqual([24, 13, 12, 24]);
  });

  it('the 23-hour spring day is one window', () => {
    const ws = dayWindows(ms('2026-03-28T23:00Z'), ms('2026-03-29T22:00Z'), BERLIN);
    expect(show(ws)).toEqual(['2026-03-28T23:00/2026-03-29T22:00']);
    expect(hours(ws[0]!)).toBe(23);
  });

  it('a range that starts and ends inside days is clipped at both ends, cut at local midnight', () => {
    const ws = dayWindows(ms('2026-03-10T10:00Z'), ms('2026-03-11T05:00Z'), BERLIN);
    expect(show(ws)).toEqual(['2026-03-10T10:00/2026-03-10T23:00', '2026-03-10T23:00/2026-03-11T05:00']);
  });

  it('a smaller cap splits every longer day in two', () => {
    const ws = dayWindows(ms('2026-03-09T23:00Z'), ms('2026-03-10T23:00Z'), BERLIN, 12 * 3_600_000);
    expect(show(ws)).toEqual(['2026-03-09T23:00/2026-03-10T11:00', '2026-03-10T11:00/2026-03-10T23:00']);
    // A day exactly as long as the cap is not split.
    expect(dayWindows(ms('2026-03-09T23:00Z'), ms('2026-03-10T23:00Z'), BERLIN)).toHaveLength(1);
  });

  it('local days from and to, both inclusive; the fall-back day is 25 hours long', () => {
    expect(show([dayRange('2026-10-25', '2026-10-25', BERLIN)])).toEqual([
      '2026-10-24T22:00/2026-10-25T23:00',
    ]);
    expect(show([dayRange('2026-03-01', '2026-03-31', BERLIN)])).toEqual([
      '2026-02-28T23:00/2026-03-31T22:00',
    ]);
  });
});

describe('the settled cut', () => {
  it('is the local midnight at or before the instant, in the offset of that day', () => {
    // 25 Oct 10:00 UTC is 11:00 CET; that day began at 00:00 CEST = 24 Oct 22:00 UTC.
    expect(settledCut(ms('2026-10-25T10:00Z'), BERLIN)).toBe(ms('2026-10-24T22:00Z'));
    // A local midnight is its own cut.
    expect(settledCut(ms('2026-10-25T23:00Z'), BERLIN)).toBe(ms('2026-10-25T23:00Z'));
    // One second before midnight belongs to the day before.
    expect(settledCut(ms('2026-10-25T22:59:59Z'), BERLIN)).toBe(ms('2026-10-24T22:00Z'));
  });

  it('splits a window only when the cut lies strictly inside it', () => {
    const w = { startMs: ms('2026-10-01T00:00Z'), endMs: ms('2026-10-31T00:00Z') };
    expect(show(cutAt(w, ms('2026-10-20T00:00Z')))).toEqual([
      '2026-10-01T00:00/2026-10-20T00:00',
      '2026-10-20T00:00/2026-10-31T00:00',
    ]);
    expect(cutAt(w, w.startMs)).toEqual([w]);
    expect(cutAt(w, w.endMs)).toEqual([w]);
    expect(cutAt(w, ms('2026-11-05T00:00Z'))).toEqual([w]);
    expect(cutAt(w, ms('2026-09-05T00:00Z'))).toEqual([w]);
  });
});

describe('splitting a window that held too much', () => {
  it('at the local midnight nearest its middle', () => {
    // 10 Mar 06:00 CET … 13 Mar 06:00 CET; middle 11 Mar 18:00 CET; nearest midnight 12 Mar 00:00.
    const halves = splitAtMidnight(
      { startMs: ms('2026-03-10T05:00Z'), endMs: ms('2026-03-13T05:00Z') },
      BERLIN,
    );
    expect(show(halves)).toEqual(['2026-03-10T05:00/2026-03-11T23:00', '2026-03-11T23:00/2026-03-13T05:00']);
  });

  it('a month window splits at the middle midnight; a tie goes to the earlier one, so a rerun splits the same', () => {
    // 1 … 5 Mar (4 days): the middle is 3 Mar 00:00 itself.
    const four = splitAtMidnight(
      { startMs: ms('2026-02-28T23:00Z'), endMs: ms('2026-03-04T23:00Z') },
      BERLIN,
    );
    expect(show(four)).toEqual(['2026-02-28T23:00/2026-03-02T23:00', '2026-03-02T23:00/2026-03-04T23:00']);
    // January (31 days): the middle is 16 Jan 12:00, 12 h from the midnights of the 16th and the 17th.
    const jan = splitAtMidnight({ startMs: ms('2025-12-31T23:00Z'), endMs: ms('2026-01-31T23:00Z') }, BERLIN);
    expect(show(jan)).toEqual(['2025-12-31T23:00/2026-01-15T23:00', '2026-01-15T23:00/2026-01-31T23:00']);
  });

  it('across the fall-back: the midnight is found in the right offset', () => {
    // 24 Oct 00:00 CEST … 26 Oct 00:00 CET (49 h): the only midnight inside is 25 Oct 00:00 CEST.
    const halves = splitAtMidnight(
      { startMs: ms('2026-10-23T22:00Z'), endMs: ms('2026-10-25T23:00Z') },
      BERLIN,
    );
    expect(show(halves)).toEqual(['2026-10-23T22:00/2026-10-24T22:00', '2026-10-24T22:00/2026-10-25T23:00']);
  });

  it('a window shorter than a day that crosses midnight splits there', () => {
    const halves = splitAtMidnight(
      { startMs: ms('2026-03-10T20:00Z'), endMs: ms('2026-03-11T02:00Z') },
      BERLIN,
    );
    expect(show(halves)).toEqual(['2026-03-10T20:00/2026-03-10T23:00', '2026-03-10T23:00/2026-03-11T02:00']);
  });

  it('a window of one local day (or less, inside one day) cannot be split', () => {
    expect(
      splitAtMidnight({ startMs: ms('2026-03-09T23:00Z'), endMs: ms('2026-03-10T23:00Z') }, BERLIN),
    ).toBeNull();
    expect(
      splitAtMidnight({ startMs: ms('2026-03-10T08:00Z'), endMs: ms('2026-03-10T20:00Z') }, BERLIN),
    ).toBeNull();
  });
});

describe('splitEvenly (a window too big to hold at once, in pieces)', () => {
  it('cuts a month at the local midnights nearest equal shares, the pieces tiling it', () => {
    // March in Berlin (743 h, the spring-forward on the 29th): thirds end at 11 Mar 07:40 and
    // 21 Mar 15:20 local, so the cuts are 11 and 22 March 00:00.
    const march = { startMs: ms('2026-02-28T23:00Z'), endMs: ms('2026-03-31T22:00Z') };
    expect(show(splitEvenly(march, 3, BERLIN))).toEqual([
      '2026-02-28T23:00/2026-03-10T23:00',
      '2026-03-10T23:00/2026-03-21T23:00',
      '2026-03-21T23:00/2026-03-31T22:00',
    ]);
    expect(splitEvenly(march, 1, BERLIN)).toEqual([march]);
  });

  it('more pieces than days: one local day each', () => {
    const three = { startMs: ms('2026-03-09T23:00Z'), endMs: ms('2026-03-12T23:00Z') };
    expect(splitEvenly(three, 10, BERLIN).map(hours)).toEqual([24, 24, 24]);
  });

  it('a window of one local day or less is cut at whole hours; one of an hour is not cut', () => {
    const day = { startMs: ms('2026-03-09T23:00Z'), endMs: ms('2026-03-10T23:00Z') };
    expect(show(splitEvenly(day, 2, BERLIN))).toEqual([
      '2026-03-09T23:00/2026-03-10T11:00',
      '2026-03-10T11:00/2026-03-10T23:00',
    ]);
    const hour = { startMs: ms('2026-03-10T08:00Z'), endMs: ms('2026-03-10T09:00Z') };
    expect(splitEvenly(hour, 4, BERLIN)).toEqual([hour]);
  });
});

it('a window is labelled by its UTC instants', () => {
  expect(windowLabel({ startMs: ms('2026-10-24T22:00Z'), endMs: ms('2026-10-25T23:00Z') })).toBe(
    '2026-10-24T22:00:00.000Z/2026-10-25T23:00:00.000Z',
  );
});
