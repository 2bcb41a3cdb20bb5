/**
 * Report parameters as a user meets them: which local days a question covers when the range is
 * left out or half given, what "today" is in the account's zone, which future questions are
 * refused and which are answered, and the exact message for each mistake. The clock is fixed at
 * 30 April 2026 22:30 UTC: still 30 April in UTC, already 1 May (00:30) in Berlin.
 */
import { describe, expect, it } from 'vitest';
import { FleetsyncError } from '../../src/errors.ts';
import { MAX_RANGE_DAYS, parseReportParams, rangeNote, type ReportParams } from '../../src/reports/params.ts';
import { getReport, type ReportDef } from '../../src/reports/registry.ts';

const NOW = Date.parse('2026-04-30T22:30:00Z');
const UTC = { zone: 'UTC', nowMs: NOW };
const BERLIN = { zone: 'Europe/Berlin', nowMs: NOW };
const report = (name: string): ReportDef => getReport(name)!;
const mileage = report('mileage');

const range = (p: ReportParams) => `${p.fromDay}..${p.toDay}`;
const parse = (
  raw: Record<string, unknown>,
  def = mileage,
  ctx: Parameters<typeof parseReportParams>[2] = UTC,
) => parseReportParams(raw, def, ctx);

/** The message a refused request gets; fails when the request is accepted or fails otherwise. */
function refusal(
  raw: Record<string, unknown>,
  def = mileage,
  ctx: Parameters<typeof parseReportParams>[2] = UTC,
) {
  try {
    parse(raw, def, ctx);
  } catch (e) {
    expect(e).toBeInstanceOf(FleetsyncError);
    expect((e as FleetsyncError).code).toBe('E_BAD_REQUEST');
    return (e as FleetsyncError).message;
  }
  throw new Error(`accepted: ${JSON.stringify(raw)}`);
}

describe('the range a question covers', () => {
  it('no range: the current local month up to today, today as the account’s zone sees it', () => {
    expect(range(parse({}, mileage, UTC))).toBe('2026-04-01..2026-04-30');
    expect(range(parse({}, mileage, BERLIN))).toBe('2026-05-01..2026-05-01');
  });

  it('a month is its whole local month: 28 days in February, 29 in a leap year, December ends the year', () => {
    expect(range(parse({ month: '2026-02' }))).toBe('2026-02-01..2026-02-28');
    expect(range(parse({ month: '2024-02' }))).toBe('2024-02-01..2024-02-29');
    expect(range(parse({ month: '2025-12' }))).toBe('2025-12-01..2025-12-31');
    expect(range(parse({ month: '2026-04' }))).toBe('2026-04-01..2026-04-30');
  });

  it('only from: up to today; only to: from the first of to’s month', () => {
    expect(range(parse({ from: '2026-03-10' }))).toBe('2026-03-10..2026-04-30');
    expect(range(parse({ to: '2026-03-15' }))).toBe('2026-03-01..2026-03-15');
    expect(range(parse({ from: '2026-04-30', to: '2026-04-30' }))).toBe('2026-04-30..2026-04-30');
  });

  it('empty values count as absent', () => {
    expect(range(parse({ from: '', to: '', month: '', vehicle: '' }))).toBe('2026-04-01..2026-04-30');
    expect(parse({ vehicle: '' }).vehicle).toBeNull();
  });

  it('a range that reaches past today is answered (with a note), one that starts after today is refused', () => {
    expect(range(parse({ from: '2026-04-01', to: '2026-05-31' }))).toBe('2026-04-01..2026-05-31');
    expect(refusal({ from: '2026-05-01' })).toBe(
      'from: 2026-05-01 is in the future (today is 2026-04-30 in UTC); no data exists for it yet',
    );
    expect(refusal({ month: '2026-05' })).toBe(
      'month: 2026-05 is in the future (today is 2026-04-30 in UTC); no data exists for it yet',
    );
    // In Berlin May has begun.
    expect(range(parse({ month: '2026-05' }, mileage, BERLIN))).toBe('2026-05-01..2026-05-31');
    expect(range(parse({ from: '2026-05-01' }, mileage, BERLIN))).toBe('2026-05-01..2026-05-01');
  });

  it('the booking reports answer for the month ahead (bookings are synced ahead)', () => {
    const carpool = report('carpool');
    expect(range(parse({ month: '2026-06' }, carpool))).toBe('2026-06-01..2026-06-30');
    // From alone after today: that day only, not a range running backwards to today.
    expect(range(parse({ from: '2026-05-10' }, carpool))).toBe('2026-05-10..2026-05-10');
    expect(range(parse({ from: '2026-05-10' }, report('carpool_status')))).toBe('2026-05-10..2026-05-10');
    expect(range(parse({ month: '2026-06' }, report('carpool_departments')))).toBe('2026-06-01..2026-06-30');
  });

  it('future: false (before the zone is known) lets a future range through', () => {
    expect(range(parse({ month: '2026-05' }, mileage, { ...UTC, future: false }))).toBe(
      '2026-05-01..2026-05-31',
    );
  });

  it(`at most ${MAX_RANGE_DAYS} days, counted with both ends`, () => {
    // 2023-01-01 + 1099 days (365 + 366 + 365 + 3) = 2026-01-04.
    expect(range(parse({ from: '2023-01-01', to: '2026-01-04' }))).toBe('2023-01-01..2026-01-04');
    expect(refusal({ from: '2023-01-01', to: '2026-01-05' })).toBe(
      'range: 1101 days is longer than the 1100 days a report allows',
    );
  });
});

describe('the other parameters', () => {
  it('defaults: every vehicle and department, daily grain, top 10 (the runs report: 100)', () => {
    expect(parse({})).toEqual({
      fromDay: '2026-04-01',
      toDay: '2026-04-30',
      vehicle: null,
      department: null,
      grain: 'day',
      limit: 10,
      driver: null,
      site: null,
    });
    expect(parse({}, report('top_vehicles')).limit).toBe(10);
    expect(parse({}, report('runs')).limit).toBe(100);
  });

  it('values as given: a vehicle id as a number, a department with its punctuation, a grain, a limit', () => {
    const p = parse({ vehicle: '42', department: 'Sales & Service (Nord)/2' });
    expect(p.vehicle).toBe(42);
    expect(p.department).toBe('Sales & Service (Nord)/2');
    // names as accounts write them, up to 200 characters (counted as characters, not bytes)
    for (const name of ["Children's Services", 'Sales – East', 'Ops: North', 'Sales -- x', 'é'.repeat(200)])
      expect(parse({ department: name }).department).toBe(name);
    expect(parse({ grain: 'week' }, report('trend')).grain).toBe('week');
    expect(parse({ limit: '1' }, report('top_vehicles')).limit).toBe(1);
    expect(parse({ limit: '1000' }, report('top_vehicles')).limit).toBe(1000);
  });

  it('grain and limit only where the report takes them', () => {
    expect(refusal({ grain: 'week' })).toBe('grain: not a parameter of the mileage report');
    expect(refusal({ limit: '5' })).toBe('limit: not a parameter of the mileage report');
    expect(refusal({ limit: '5' }, report('trend'))).toBe('limit: not a parameter of the trend report');
    // driver: only the trips report (the drill-down behind a driver's figure)
    expect(refusal({ driver: 'd1' })).toBe('driver: not a parameter of the mileage report');
    expect(parse({ driver: 'd1' }, report('trips')).driver).toBe('d1');
  });
});

describe('each mistake is named', () => {
  it.each([
    [{ from: '2026-02-30' }, 'from: is not a calendar day (got "2026-02-30")'],
    [
      { to: '2026/04/01' },
      'to: must be a calendar day YYYY-MM-DD (got "2026/04/01"); to: is not a calendar day (got "2026/04/01")',
    ],
    [{ month: '2026-13' }, 'month: must be a month YYYY-MM (got "2026-13")'],
    [{ month: '2026-00' }, 'month: must be a month YYYY-MM (got "2026-00")'],
    [{ vehicle: '12a' }, 'vehicle: must be a vehicle id (digits)'],
    [{ department: 'd'.repeat(201) }, 'department: must be a department name of at most 200 characters'],
    [{ department: 'Ops\u0000North' }, 'department: must be a department name without control characters'],
    [{ department: 'Ops\nNorth' }, 'department: must be a department name without control characters'],
    [{ month: '2026-04', from: '2026-04-01' }, 'month: give either month or from/to, not both'],
    [{ month: '2026-04', to: '2026-04-10' }, 'month: give either month or from/to, not both'],
    [{ from: '2026-04-10', to: '2026-04-01' }, 'to: 2026-04-01 is before from 2026-04-10'],
    // a value is its form whole: nothing before it, nothing after it
    [
      { from: 'x2026-04-01' },
      'from: must be a calendar day YYYY-MM-DD (got "x2026-04-01"); from: is not a calendar day (got "x2026-04-01")',
    ],
    [
      { to: '2026-04-01;x' },
      'to: must be a calendar day YYYY-MM-DD (got "2026-04-01;x"); to: is not a calendar day (got "2026-04-01;x")',
    ],
    [{ month: 'FY2026-04' }, 'month: must be a month YYYY-MM (got "FY2026-04")'],
    [{ month: '2026-04-01' }, 'month: must be a month YYYY-MM (got "2026-04-01")'],
    [{ vehicle: 'x12' }, 'vehicle: must be a vehicle id (digits)'],
    [{ vehicle: '1 OR 1=1' }, 'vehicle: must be a vehicle id (digits)'],
    [{ sql: 'select', x: '1' }, 'unknown parameter(s): sql, x'],
    [JSON.parse('{"__proto__": "x"}') as Record<string, unknown>, 'unknown parameter(s): __proto__'],
  ])('%o → %s', (raw, message) => {
    expect(refusal(raw)).toBe(message);
  });

  it.each([
    [{ grain: 'hour' }, 'trend', 'grain: must be day, week or month'],
    [{ limit: '0' }, 'top_vehicles', 'limit: must be a whole number 1–1000'],
    [{ limit: '1001' }, 'top_vehicles', 'limit: must be a whole number 1–1000'],
    [{ limit: '10000' }, 'top_vehicles', 'limit: must be a whole number 1–1000'],
  ])('%o on %s → %s', (raw, name, message) => {
    expect(refusal(raw, report(name))).toBe(message);
  });

  it('every grain the trend offers is taken', () => {
    expect(['day', 'week', 'month'].map((g) => parse({ grain: g }, report('trend')).grain)).toEqual([
      'day',
      'week',
      'month',
    ]);
  });

  it('a repeated parameter is refused, not silently reduced to one value', () => {
    expect(refusal({ vehicle: ['1', '2'] })).toMatch(/^vehicle: /);
  });

  it('every problem at once, each by name, also as a list', () => {
    let err: FleetsyncError | undefined;
    try {
      parse({ from: '2026-02-30', vehicle: 'x', colour: 'red' });
    } catch (e) {
      err = e as FleetsyncError;
    }
    expect(err?.details?.problems).toEqual([
      'from: is not a calendar day (got "2026-02-30")',
      'vehicle: must be a vehicle id (digits)',
      'unknown parameter(s): colour',
    ]);
    expect(err?.message).toBe(
      'from: is not a calendar day (got "2026-02-30"); vehicle: must be a vehicle id (digits); unknown parameter(s): colour',
    );
  });
});

describe('the note on a range past today', () => {
  const through = 'complete through 2026-04-29';

  it('says up to when the range holds data, in the account’s zone', () => {
    expect(rangeNote({ toDay: '2026-05-31' }, UTC, through)).toBe(
      'the range runs to 2026-05-31, past today (2026-04-30 in UTC): it holds data up to now, complete through 2026-04-29',
    );
  });

  it('is absent for a range that ends today or before', () => {
    expect(rangeNote({ toDay: '2026-04-30' }, UTC, through)).toBeNull();
    expect(rangeNote({ toDay: '2026-04-01' }, UTC, through)).toBeNull();
    // 1 May is today in Berlin: no note there.
    expect(rangeNote({ toDay: '2026-05-01' }, BERLIN, through)).toBeNull();
    expect(rangeNote({ toDay: '2026-05-01' }, UTC, through)).not.toBeNull();
  });
});
