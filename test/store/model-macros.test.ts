/**
 * A connection prepared for given queries (src/store/models.ts) defines the macros those queries
 * call and what those call in turn, and no others; asked later for everything, it defines the
 * rest. The sync's writers prepare only the refresh's queries (src/store/facts.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { prepareModelConnection } from '../../src/store/models.ts';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-model-macros-'));
  db = await openDatabase(join(dir, 'm.duckdb'));
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The temporary macros defined on a connection. */
async function macros(con: DuckDBConnection): Promise<Set<string>> {
  const r = await con.runAndReadAll(
    "SELECT DISTINCT function_name AS f FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro') AND database_name = 'temp'",
  );
  return new Set(r.getRowObjectsJS().map((x) => String(x.f)));
}

describe('macros defined for the queries a connection runs', () => {
  it('the coverage refresh: its macro and those it calls, not the reports', async () => {
    const con = await db.connect();
    try {
      await prepareModelConnection(con, ['sync/coverage_facts_insert']);
      const got = await macros(con);
      // what coverage_facts_insert.sql calls, and what ledger_day_coverage calls in turn
      for (const m of ['ledger_day_coverage', 'months_first_day', 'months_last_day', 'ended_local_days'])
        expect(got).toContain(m);
      for (const m of ['service_due', 'daily_facts_of', 'vehicle_month_costs', 'iso_local', 'logbook_trips'])
        expect(got).not.toContain(m);
      // the insert runs on it (an empty ledger: no rows)
      await con.run(
        "INSERT INTO day_coverage SELECT 'a', c.* FROM ledger_day_coverage('a', 'Europe/Oslo', NULL, NULL, DATE '2026-01-01', DATE '2026-01-31') AS c",
      );
    } finally {
      con.closeSync();
    }
  });

  it('the facts refresh adds the daily facts; everything later adds the rest, each once', async () => {
    const con = await db.connect();
    const all = await db.connect();
    try {
      await prepareModelConnection(con, ['sync/coverage_facts_insert', 'sync/facts_insert']);
      const some = await macros(con);
      expect(some).toContain('daily_facts_of');
      expect(some).not.toContain('service_due');
      await prepareModelConnection(all);
      const every = await macros(all);
      expect(some.size).toBeLessThan(every.size);
      await prepareModelConnection(con);
      expect(await macros(con)).toEqual(every);
      // a second call defines nothing again (it would fail on nothing, but costs a statement each)
      await prepareModelConnection(con, ['sync/facts_insert']);
      expect(await macros(con)).toEqual(every);
    } finally {
      con.closeSync();
      all.closeSync();
    }
  });
});
