import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { overviewCalls } from '../../src/server/report-routes.ts';
import { coverageMacroNames, nowKey, nowUse } from '../../src/server/report-cache.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { loadSql } from '../../src/store/queries.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

const HOUR = 3_600_000;
const config = () => loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE, FLEETSYNC_PORT: '0' });

describe('which reports an answer kept for the local day may serve', () => {
  it('reports that read $now only as the coverage macros’ days-ended-by-now are day-keyed; others per instant', () => {
    const use = (n: string) => nowUse(loadSql(`reports/${n}`));
    for (const n of ['kpis', 'costs', 'cost_departments', 'trend', 'mileage']) expect(use(n), n).toBe('day');
    expect(use('service_due')).toBe('instant'); // "as of now": moves with the clock
    expect(use('vehicles')).toBe('none');
    expect(use('top_vehicles')).toBe('none');
    expect(nowUse('SELECT * FROM kpis_x($now)')).toBe('instant');
    expect(nowUse('SELECT * FROM fleet_day_coverage(a, b, c, $now) WHERE t < $now')).toBe('instant');
    expect(nowUse('-- $now in a comment\nSELECT 1')).toBe('none');
  });

  it('the coverage macros read now_ts only to say which local days have ended', () => {
    // what makes 'day' sound: every now_ts in coverage.sql is a macro's parameter, an argument of
    // another coverage macro, or the one comparison in ended_local_days
    const text = loadSql('models/coverage').replace(/--[^\n]*/g, '');
    const macros = coverageMacroNames();
    expect(macros.has('ended_local_days') && macros.has('fleet_day_coverage')).toBe(true);
    const other = text
      .replace(/WHERE timezone\(zone, d \+ INTERVAL 1 DAY\) <= now_ts;/, '')
      .replace(new RegExp(`\\b(${[...macros].join('|')})\\s*\\(([^()]|\\([^()]*\\))*\\)`, 'g'), '');
    expect(other).not.toMatch(/now_ts/);
    expect(text.match(/<= now_ts/g)).toHaveLength(1);
  });

  it('the day key stays through the local day, moves at midnight, and is the instant near a DST change', () => {
    const at = (ms: number) => nowKey('day', { nowMs: ms, zone: ZONE });
    // NOW is 10:00 on 2 May 2026 in Sydney (AEST, no change near)
    expect(at(NOW + HOUR)).toBe(at(NOW));
    expect(at(NOW + 13 * HOUR)).toBe(at(NOW)); // 23:00
    expect(at(NOW + 14 * HOUR)).not.toBe(at(NOW)); // midnight: 3 May
    expect(at(NOW)).toBe('day 2026-05-02');
    // 5 April 2026, 03:00 AEDT → 02:00 AEST (16:00 UTC on the 4th): the instant within two hours
    const change = Date.parse('2026-04-04T16:00:00Z');
    expect(at(change - HOUR)).toBe(change - HOUR);
    expect(at(change - 3 * HOUR)).toBe('day 2026-04-05');
    expect(nowKey('instant', { nowMs: NOW, zone: ZONE })).toBe(NOW);
    expect(nowKey('none', { nowMs: NOW, zone: ZONE })).toBeNull();
  });
});

describe('the overview’s calls warmed at start', () => {
  let fx: FixtureDb;
  let warm: RunningServer;
  let cold: RunningServer;
  let clock = NOW;
  const base = () => ({
    db: fx.db,
    config: config(),
    log: silentLogger,
    now: () => clock,
    port: 0,
    schedule: null,
  });
  beforeAll(async () => {
    fx = await openFixture();
    warm = await startServer({ ...base(), warmUp: true });
    cold = await startServer(base());
  });
  afterAll(async () => {
    await warm?.close();
    await cold?.close();
    fx?.close();
  });

  const call = (srv: RunningServer, report: string, query: Record<string, string>) =>
    fetch(new URL(`/api/reports/${report}?${new URLSearchParams(query).toString()}`, srv.url));
  const body = async (r: Response) => {
    const j = (await r.json()) as Record<string, unknown>;
    delete j.generated_at;
    return j;
  };

  const callOf = (today: string, report: string) => overviewCalls(today).find((c) => c.report === report)!;

  it('the default period is the dashboard’s last 3 months, through today in the account’s zone', () => {
    const calls = overviewCalls('2026-05-02');
    // the vehicle list first (the page asks it before any section), then the sections cheapest first
    expect(calls.map((c) => c.report)).toEqual([
      'vehicles',
      'top_vehicles',
      'trend',
      'kpis',
      'cost_departments',
      'costs',
    ]);
    // read whole where the page reads every page (the filter bar's list, the charts)
    expect(calls.filter((c) => c.allPages).map((c) => c.report)).toEqual([
      'vehicles',
      'top_vehicles',
      'trend',
    ]);
    expect(callOf('2026-05-02', 'kpis').query).toEqual({ from: '2026-03-01', to: '2026-05-02' });
    expect(callOf('2026-02-10', 'costs').query).toEqual({ from: '2025-12-01', to: '2026-02-10' });
    expect(callOf('2026-01-31', 'trend').query).toEqual({
      from: '2025-11-01',
      to: '2026-01-31',
      grain: 'week',
    });
  });

  it('after the warm-up every overview call is answered from the memo, the same answer a cold server computes', async () => {
    await warm.warmed();
    for (const { report, query } of overviewCalls('2026-05-02')) {
      const w = await call(warm, report, query);
      const c = await call(cold, report, query);
      expect([w.status, c.status], report).toEqual([200, 200]);
      expect(w.headers.get('x-fleetsync-answer'), report).toBe('kept');
      expect(c.headers.get('x-fleetsync-answer'), report).toBe('computed');
      expect(await body(w), report).toEqual(await body(c));
    }
    // a call the warm-up does not make is computed
    const other = await call(warm, 'kpis', { from: '2026-04-01', to: '2026-04-30' });
    expect(other.headers.get('x-fleetsync-answer')).toBe('computed');
  });

  it('a visit in the server’s first moments waits for the warm-up’s calls instead of computing them beside it', async () => {
    const fresh = await startServer({ ...base(), warmUp: true });
    try {
      // at once, as the page asks its sections (the warm-up has just started its pass)
      const calls = overviewCalls('2026-05-02');
      const answers = await Promise.all(calls.map((c) => call(fresh, c.report, c.query)));
      for (const [i, { report, query }] of calls.entries()) {
        const a = answers[i]!;
        expect(a.status, report).toBe(200);
        expect(a.headers.get('x-fleetsync-answer'), report).toBe('kept');
        expect(await body(a), report).toEqual(await body(await call(cold, report, query)));
      }
      await fresh.warmed();
    } finally {
      await fresh.close();
    }
  });

  it('an answer that reads the clock only for the days ended is kept through the local day, not into the next', async () => {
    const kpis = callOf('2026-05-02', 'kpis');
    const rangeDays = async (r: Response) =>
      ((await r.json()) as { rows: { range_days: number }[] }).rows[0]!.range_days;
    try {
      clock = NOW + 2 * HOUR; // 12:00 on 2 May in Sydney
      const later = await call(warm, kpis.report, kpis.query);
      expect(later.headers.get('x-fleetsync-answer')).toBe('kept');
      // the days of 1 March – 2 May ended by then: March 31 + April 30 + 1 May
      expect(await rangeDays(later)).toBe(62);
      clock = NOW + 15 * HOUR; // 01:00 on 3 May: 2 May has ended too
      const next = await call(warm, kpis.report, kpis.query);
      expect(next.headers.get('x-fleetsync-answer')).toBe('computed');
      expect(await rangeDays(next)).toBe(63);
    } finally {
      clock = NOW;
    }
  });
});
