import { describe, expect, it } from 'vitest';
import {
  formatLocal,
  formatLocalMinute,
  formatWireTimestamp,
  intlWallTime,
  localDayBounds,
  localMonthBounds,
  offsetMinutes,
  parseLocal,
  parseWireTimestamp,
  wallTime,
} from '../src/time.ts';

const SYD = 'Australia/Sydney';

describe('time in the account zone', () => {
  it('gives the days the clocks change their real length', () => {
    const back = localDayBounds('2026-04-05', SYD); // AEDT → AEST
    const fwd = localDayBounds('2026-10-04', SYD); // AEST → AEDT
    expect((back.endMs - back.startMs) / 3_600_000).toBe(25);
    expect((fwd.endMs - fwd.startMs) / 3_600_000).toBe(23);
  });

  it('formats request bounds as local wall time and response stamps with a short offset', () => {
    const ms = Date.parse('2026-01-15T13:00:00Z');
    expect(formatLocal(ms, SYD)).toBe('2026-01-16 00:00:00');
    expect(formatWireTimestamp(ms, SYD)).toBe('2026-01-16 00:00:00+11');
    expect(formatWireTimestamp(ms, 'Asia/Kolkata')).toBe('2026-01-15 18:30:00+05:30');
  });

  it('formats wall time to the minute, both 02:30s of the night the clocks go back', () => {
    // 5 April 2026, 03:00 AEDT (+11) → 02:00 AEST (+10), at 16:00 UTC on the 4th
    expect(formatLocalMinute(Date.parse('2026-04-04T15:30:59Z'), SYD)).toBe('2026-04-05 02:30');
    expect(formatLocalMinute(Date.parse('2026-04-04T16:30:00Z'), SYD)).toBe('2026-04-05 02:30');
    expect(formatLocalMinute(Date.parse('2026-04-04T16:00:00Z'), 'UTC')).toBe('2026-04-04 16:00');
  });

  it('parses every wire timestamp variant to the same instant', () => {
    const want = Date.parse('2026-09-20T08:32:41Z');
    for (const t of [
      '2026-09-20 10:32:41+02',
      '2026-09-20 10:32:41+02:00',
      '2026-09-20T10:32:41+02:00',
      '2026-09-20T08:32:41Z',
      '2026-09-20 10:32:41+0200',
    ])
      expect(parseWireTimestamp(t), t).toBe(want);
    expect(parseWireTimestamp('2026-09-20 10:32:41', 'Africa/Johannesburg')).toBe(want);
    expect(parseWireTimestamp('2026-09-20 10:32:41')).toBeNull();
    expect(parseWireTimestamp('yesterday')).toBeNull();
  });

  it('rejects impossible calendar days', () => {
    expect(parseLocal('2026-02-31 00:00:00', SYD)).toBeNull();
    expect(parseLocal('2026-13-01 00:00:00', SYD)).toBeNull();
  });

  it('bounds local months across a DST change', () => {
    const apr = localMonthBounds('2026-04', SYD);
    expect(formatWireTimestamp(apr.startMs, SYD)).toBe('2026-04-01 00:00:00+11');
    expect(formatWireTimestamp(apr.endMs, SYD)).toBe('2026-05-01 00:00:00+10');
  });
});

describe('wallTime (cached offsets) agrees with Intl', () => {
  const zones = [
    'Australia/Sydney',
    'Australia/Lord_Howe', // 30-minute DST shift
    'Asia/Kathmandu', // +05:45
    'Pacific/Chatham', // +12:45 / +13:45
    'America/St_Johns', // -03:30, DST at 02:00 local
    'Europe/London',
    'Africa/Johannesburg',
    'UTC',
  ];
  const intl = intlWallTime;

  it('at random instants and at every second around each transition of 2025–2027', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const from = Date.parse('2025-01-01T00:00:00Z');
    const to = Date.parse('2028-01-01T00:00:00Z');
    for (const zone of zones) {
      for (let i = 0; i < 3000; i++) {
        const ms = from + Math.floor(rnd() * (to - from));
        expect(wallTime(ms, zone), `${zone} ${new Date(ms).toISOString()}`).toEqual(intl(ms, zone));
      }
      // Walk by hours; where the offset changes, check every second of the hour around it.
      let prev = offsetMinutes(from, zone);
      for (let h = from; h < to; h += 3_600_000) {
        const off = offsetMinutes(h, zone);
        if (off !== prev)
          for (let s = h - 3_600_000; s <= h; s += 1000)
            expect(wallTime(s, zone), `${zone} ${new Date(s).toISOString()}`).toEqual(intl(s, zone));
        prev = off;
      }
    }
  });
});
