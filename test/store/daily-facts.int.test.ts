/**
 * The daily facts (issue 29): kept by the sync's commits, they equal the facts computed from the
 * raw rows through the models, row for row, and every report that reads them equals the same
 * report over the raw tables (useRawFacts puts the raw computation in the facts' place on a
 * connection). On the shared simulator sync: a whole history, late data pulled again at the end.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRawFacts } from '../../src/store/models.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { ACCOUNT } from '../helpers/synced.ts';
import { startSharedSync, type SharedSync } from '../helpers/shared-sync.ts';

let s: SharedSync;
let scope: ReportScope;
beforeAll(async () => {
  s = await startSharedSync();
  scope = { account: ACCOUNT, zone: s.h.fleet.timezone, nowMs: s.h.now() };
}, 300_000);
afterAll(() => s?.h.close());

async function withCon<T>(fn: (con: DuckDBConnection) => Promise<T>): Promise<T> {
  const con = await s.h.db.connect();
  try {
    return await fn(con);
  } finally {
    con.closeSync();
  }
}

/** Every fact row of the account, stored or (raw) computed now, in one order. */
async function facts(raw: boolean) {
  return withCon(async (con) => {
    if (raw) await useRawFacts(con);
    else await import('../../src/store/models.ts').then((m) => m.prepareModelConnection(con));
    const r = await con.runAndReadAll(
      `SELECT stream, vehicle_id, strftime(day, '%Y-%m-%d') AS day, windows, left_out, distance_m, used_l,
         epoch_ms(last_window_end) AS last_window_end, trips, trip_distance_m, toll_passages
       FROM vehicle_day_facts($1, $2, DATE '1970-01-01', DATE '2999-12-31')
       ORDER BY stream, vehicle_id, day`,
      [ACCOUNT, scope.zone],
    );
    return r.getRowObjectsJS();
  });
}

describe('daily facts', () => {
  it('kept at commit equal the facts computed from the raw rows', async () => {
    expect(s.first.outcome).toBe('ok');
    const stored = await facts(false);
    const raw = await facts(true);
    expect(stored.length).toBeGreaterThan(0);
    expect(new Set(stored.map((r) => r.stream))).toEqual(
      new Set(['odometer', 'fuel_consumed', 'fuel_level', 'trips', 'visits']),
    );
    expect(stored).toEqual(raw);
  });
});

/** The reports that read the daily facts, each over a range that tests its edges. */
const MOVED = ['kpis', 'trend', 'mileage', 'top_vehicles'];

async function report(name: string, raw: Record<string, string>, rawFacts: boolean) {
  return withCon(async (con) => {
    if (rawFacts) await useRawFacts(con);
    const def = requireReport(name);
    return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
  });
}

describe('every report over the daily facts equals the same report over the raw tables', () => {
  const ranges = (): Record<string, Record<string, string>> => {
    const { firstDay, lastDay } = s.h;
    return {
      whole: { from: firstDay, to: lastDay },
      // a range inside a month: kpis' distance and fuel over the range or the whole months
      midMonth: { from: '2026-03-10', to: '2026-03-20' },
      monthsEdge: { from: '2026-02-28', to: '2026-04-01' },
      weeks: { from: firstDay, to: lastDay, grain: 'week' },
      months: { from: firstDay, to: lastDay, grain: 'month' },
    };
  };
  for (const name of MOVED)
    it(name, async () => {
      for (const [label, raw] of Object.entries(ranges())) {
        if (raw.grain && name !== 'trend') continue;
        const facts = await report(name, raw, false);
        const rawRows = await report(name, raw, true);
        expect(facts.length, `${name} ${label}`).toBeGreaterThan(0);
        expect(facts, `${name} ${label}`).toEqual(rawRows);
      }
    });
});
