/**
 * The periods and scheduled instants of subscriptions, worked out by hand on the calendar: local
 * days in the account's zone (Sydney leaves daylight saving on Sunday 5 April 2026 at 03:00, so
 * 07:00 is 20:00Z the day before and 21:00Z from that Sunday on; Berlin enters it on Sunday 29 March 2026), weeks
 * Monday to Sunday, the year's turn. No database.
 */
import { describe, expect, it } from 'vitest';
import { checkSubscriptions, periodDays } from '../../src/reports/subscription-file.ts';
import { latestSlot } from '../../src/reports/subscriptions.ts';

const T = (iso: string) => Date.parse(iso);
const SYD = 'Australia/Sydney';
const HOUR = 3_600_000;

describe('periodDays', () => {
  it('is relative to the local day of the send, not the UTC one', () => {
    // 2026-04-09T22:00Z is 10 April 08:00 in Sydney (9 April in UTC)
    expect(periodDays('yesterday', T('2026-04-09T22:00:00Z'), SYD)).toEqual({
      fromDay: '2026-04-09',
      toDay: '2026-04-09',
    });
    expect(periodDays('yesterday', T('2026-04-09T22:00:00Z'), 'UTC')).toEqual({
      fromDay: '2026-04-08',
      toDay: '2026-04-08',
    });
  });

  it('last-week is Monday to Sunday of the week before, whichever day it is sent', () => {
    // Monday 6 April, Wednesday 8 April, Sunday 12 April 2026 (local): all the week of 30 March
    for (const iso of ['2026-04-05T21:00:00Z', '2026-04-07T21:00:00Z', '2026-04-11T21:00:00Z'])
      expect(periodDays('last-week', T(iso), SYD)).toEqual({ fromDay: '2026-03-30', toDay: '2026-04-05' });
    // Monday 13 April: the week of 6 April
    expect(periodDays('last-week', T('2026-04-12T21:00:00Z'), SYD)).toEqual({
      fromDay: '2026-04-06',
      toDay: '2026-04-12',
    });
    // across the year: Friday 1 January 2027 → the week of Monday 21 December 2026
    expect(periodDays('last-week', T('2027-01-01T12:00:00Z'), 'UTC')).toEqual({
      fromDay: '2026-12-21',
      toDay: '2026-12-27',
    });
  });

  it('last-month is the local month before; month-to-date runs to yesterday (on the 1st: the month before)', () => {
    expect(periodDays('last-month', T('2027-01-15T00:00:00Z'), 'UTC')).toEqual({
      fromDay: '2026-12-01',
      toDay: '2026-12-31',
    });
    // 1 March 2028 07:00 in Sydney: February of a leap year
    expect(periodDays('last-month', T('2028-02-29T20:00:00Z'), SYD)).toEqual({
      fromDay: '2028-02-01',
      toDay: '2028-02-29',
    });
    expect(periodDays('month-to-date', T('2026-04-15T06:00:00Z'), 'UTC')).toEqual({
      fromDay: '2026-04-01',
      toDay: '2026-04-14',
    });
    expect(periodDays('month-to-date', T('2026-05-01T06:00:00Z'), 'UTC')).toEqual({
      fromDay: '2026-04-01',
      toDay: '2026-04-30',
    });
  });
});

describe('latestSlot', () => {
  it('follows the wall clock of the zone across the daylight-saving change', () => {
    // 07:00 in Sydney: 20:00Z on Saturday 4 April (AEDT, +11: 2026-04-03T20:00Z), and on Sunday
    // 5 April, daylight saving having ended at 03:00, 07:00 AEST (+10) = 2026-04-04T21:00Z: 25 h apart
    expect(latestSlot('0 7 * * *', SYD, T('2026-04-04T20:59:00Z'), 48 * HOUR)).toBe(
      T('2026-04-03T20:00:00Z'),
    );
    expect(latestSlot('0 7 * * *', SYD, T('2026-04-04T21:00:00Z'), 48 * HOUR)).toBe(
      T('2026-04-04T21:00:00Z'),
    );
    // looking back 24 h from Sunday 06:59 reaches no 07:00: that day is 25 h long
    expect(latestSlot('0 7 * * *', SYD, T('2026-04-04T20:59:00Z'), 24 * HOUR)).toBeNull();
    // 07:00 in Berlin: 06:00Z on Saturday 28 March (CET), 05:00Z on Sunday 29 March (CEST)
    expect(latestSlot('0 7 * * *', 'Europe/Berlin', T('2026-03-29T05:30:00Z'), 24 * HOUR)).toBe(
      T('2026-03-29T05:00:00Z'),
    );
    expect(latestSlot('0 7 * * *', 'Europe/Berlin', T('2026-03-29T04:59:00Z'), 24 * HOUR)).toBe(
      T('2026-03-28T06:00:00Z'),
    );
  });

  it('a wall time the clocks repeat is one slot (its first instant); one they skip has none', async () => {
    // Sydney, 5 April 2026: 03:00 AEDT becomes 02:00 AEST, so 02:30 is 15:30Z and again 16:30Z
    expect(latestSlot('30 2 * * *', SYD, T('2026-04-04T15:45:00Z'), 24 * HOUR)).toBe(
      T('2026-04-04T15:30:00Z'),
    );
    expect(latestSlot('30 2 * * *', SYD, T('2026-04-04T16:45:00Z'), 24 * HOUR)).toBe(
      T('2026-04-04T15:30:00Z'),
    );
    // 4 October 2026: 02:00 AEST becomes 03:00 AEDT; 02:30 never happens that day (2026-10-03T16:30Z is 03:30)
    expect(latestSlot('30 2 * * *', SYD, T('2026-10-03T20:00:00Z'), 20 * HOUR)).toBeNull();
    // the 02:30 before is the day before's (3 October, AEST): 27.5 h back
    expect(latestSlot('30 2 * * *', SYD, T('2026-10-03T20:00:00Z'), 28 * HOUR)).toBe(
      T('2026-10-02T16:30:00Z'),
    );
  });

  it('looks back no further than it is told; a weekday field counts in the zone', () => {
    // Monday 07:00 in Sydney = 2026-04-05T21:00Z (Sunday in UTC)
    expect(latestSlot('0 7 * * 1', SYD, T('2026-04-06T20:59:00Z'), 24 * HOUR)).toBe(
      T('2026-04-05T21:00:00Z'),
    );
    expect(latestSlot('0 7 * * 1', SYD, T('2026-04-06T21:01:00Z'), 24 * HOUR)).toBeNull();
    // 08:30 and 09:15 (mid-hour minutes): the later one
    expect(latestSlot('30 8,15 9 * *', 'UTC', T('2026-04-09T15:40:00Z'), 24 * HOUR)).toBe(
      T('2026-04-09T15:30:00Z'),
    );
  });
});

describe('checkSubscriptions', () => {
  it('reads a good file with its defaults; refuses a file that is no object list, naming the line', () => {
    const ok = checkSubscriptions(
      '{ "subscriptions": [\n { "name": "a", "report": "trips", "period": "month-to-date", "format": "csv",\n' +
        '   "to": ["x@example.com"], "schedule": "15 6 * * 1-5", "vehicle": 3, "department": "Sales – East" } ] }',
    );
    expect(ok.problems).toEqual([]);
    expect(ok.subscriptions).toEqual([
      {
        name: 'a',
        line: 2,
        report: 'trips',
        period: 'month-to-date',
        vehicle: 3,
        department: 'Sales – East',
        account: null,
        format: 'csv',
        to: ['x@example.com'],
        schedule: '15 6 * * 1-5',
        ifIncomplete: 'send',
        waitHours: 0,
      },
    ]);
    expect(checkSubscriptions('[]').problems).toEqual([
      'line 1: the file must hold one JSON object { "subscriptions": [ … ] }',
    ]);
    expect(checkSubscriptions('{\n  "subs": []\n}').problems).toEqual([
      'line 2: unknown key "subs" (known: subscriptions)',
      'line 1: "subscriptions" must be a list of entries',
    ]);
    // a schedule by the second is refused: the check runs once a minute
    expect(
      checkSubscriptions(
        '{ "subscriptions": [ { "name": "b", "report": "trips", "period": "yesterday", "format": "xlsx", "to": ["x@example.com"], "schedule": "*/5 * * * * *", "wait_hours": 3, "name2": 1 } ] }',
      ).problems,
    ).toEqual([
      'line 1 (entry 1, "b"): unknown key "name2" (known: name, report, period, vehicle, department, account, format, to, schedule, if_incomplete, wait_hours)',
      'line 1 (entry 1, "b"): schedule: "*/5 * * * * *" is not a cron expression of five fields (minute hour day month weekday, e.g. "0 7 * * *")',
      'line 1 (entry 1, "b"): wait_hours: only with if_incomplete "wait"',
    ]);
  });
});
