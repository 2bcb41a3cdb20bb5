/**
 * The streams each report reads (src/reports/needs.ts) name real reports and real streams, and
 * every report whose SQL reads a stream's data declares that stream — so a report built on an
 * endpoint the account may not read always says "not available" instead of showing zeros — and
 * declares none it does not read. What a report reads is derived from DuckDB's own parse of its
 * SQL (json_serialize_sql), so any spelling counts (FROM, JOIN, a comma, quotes, an alias, a
 * subquery), and through the model macros it calls (their definitions as DuckDB holds them).
 */
import { readFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_STREAMS, unavailableFor } from '../../src/reports/needs.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import { ACCOUNT, openFixture, ZONE } from '../helpers/report-fixture.ts';

/** Streams whose endpoints are declared one by one (a report needs only the part it reads). */
const BY_ENDPOINT = new Set(['carpool']);
/**
 * The streams checked here. Not yet: vehicles (the fleet list every report reads), and odometer,
 * fuel, fuel_level_history, visits, geofences, ev_energy, declared by hand: their models
 * (left_out_windows, the cost and coverage models) read several of them and keep one by value.
 */
const CHECKED = new Set([
  'trips',
  'drivers',
  'bookings',
  'activity',
  'GET /carpool/vehicles',
  'GET /carpool/drivers',
]);
/**
 * Lookups every report may call, and what of theirs a report reads: the fleet list with its
 * departments (the carpool list only names departments), the vehicles' classes, and the driver
 * names (the carpool driver list is their fallback).
 */
const LOOKUPS: Record<string, readonly string[]> = {
  vehicle_departments: [],
  vehicle_profiles: [],
  driver_names: ['drivers'],
  // the trips report's lookups by key position (queries/reports/lookups/trip_lookups.sql: the
  // lists are built from vehicle_departments and driver_names before the report runs)
  trip_key: ['drivers'],
};
/** Reads a report need not declare, with why. */
const UNDECLARED: Record<string, string> = {
  unknown_values:
    'lists the values the API sent that we did not expect, from every table: a refused endpoint has none (no figure shown as zero)',
};

/** A stream by its table (carpool: by endpoint) and by its ledger stream names. */
const streamOfTable = new Map<string, string>();
const streamOfLedger = new Map<string, string>();
for (const d of BUILTIN_STREAMS) {
  d.tables.forEach((t, i) => streamOfTable.set(t, BY_ENDPOINT.has(d.name) ? d.endpoints[i]! : d.name));
  for (const l of d.ledgerStreams) streamOfLedger.set(l, d.name);
}

interface Reads {
  tables: Set<string>;
  /** Text compared with a `stream` column (the ledger's, the daily facts'). */
  streamValues: Set<string>;
  calls: { name: string; textArgs: (string | null)[] }[];
}
type Node = Record<string, unknown>;
const text = (n: unknown): string | null => {
  const v = (n as Node | null)?.value as
    { type?: { id?: string }; is_null?: boolean; value?: unknown } | undefined;
  return (n as Node | null)?.class === 'CONSTANT' && v?.type?.id === 'VARCHAR' && !v.is_null
    ? String(v.value)
    : null;
};
const isStreamColumn = (n: unknown) =>
  (n as Node | null)?.class === 'COLUMN_REF' && ((n as Node).column_names as string[]).at(-1) === 'stream';

let db: Database;
let con: DuckDBConnection;
const macros = new Map<string, { reads: Reads; params: string[] }>();

/** The tables, `stream` values and calls of one SELECT, from DuckDB's parse tree. */
async function readsOf(sql: string): Promise<Reads> {
  const r = await con.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS j', [
    sql.trim().replace(/;\s*$/, ''),
  ]);
  const tree = JSON.parse(String(r.getRowObjectsJS()[0]!.j)) as Node;
  if (tree.error) throw new Error(`${String(tree.error_message)} in: ${sql.slice(0, 120)}`);
  const out: Reads = { tables: new Set(), streamValues: new Set(), calls: [] };
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== 'object') return;
    const o = n as Node;
    if (o.type === 'BASE_TABLE') out.tables.add(String(o.table_name));
    if (o.class === 'FUNCTION')
      out.calls.push({
        name: String(o.function_name),
        textArgs: ((o.children ?? []) as unknown[]).map(text),
      });
    // stream = 'x' (either side), stream IN ('x', 'y')
    const operands = [o.left, o.right, ...((o.children ?? []) as unknown[])];
    if (operands.some(isStreamColumn))
      for (const v of operands.map(text)) if (v !== null) out.streamValues.add(v);
    Object.values(o).forEach(walk);
  };
  walk(tree);
  return out;
}

/** The checked streams `sql` reads: its tables, its `stream` values, and those of the macros it calls. */
async function streamsRead(sql: string): Promise<Set<string>> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const add = (s: string | undefined) => s !== undefined && CHECKED.has(s) && found.add(s);
  const visit = (r: Reads) => {
    r.tables.forEach((t) => add(streamOfTable.get(t)));
    r.streamValues.forEach((v) => add(streamOfLedger.get(v)));
    for (const c of r.calls) {
      const m = macros.get(c.name);
      if (!m) continue;
      if (LOOKUPS[c.name]) {
        LOOKUPS[c.name]!.forEach(add);
        continue;
      }
      // a macro told which stream to read (stream_name, streams, base_stream): the one named here
      const named = m.params.flatMap((p, i) => (/stream/.test(p) ? [i] : []));
      if (named.length) named.forEach((i) => add(streamOfLedger.get(c.textArgs[i] ?? '')));
      else if (!seen.has(c.name)) {
        seen.add(c.name);
        visit(m.reads);
      }
    }
  };
  visit(await readsOf(sql));
  return found;
}

beforeAll(async () => {
  db = await openDatabase(':memory:');
  con = await db.connect();
  await prepareModelConnection(con);
  const defs = (
    await con.runAndReadAll(
      `SELECT function_name, function_type, macro_definition, parameters::VARCHAR[] AS params
       FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro') AND NOT internal`,
    )
  ).getRowObjectsJS();
  for (const d of defs) {
    const body = String(d.macro_definition);
    macros.set(String(d.function_name), {
      reads: await readsOf(d.function_type === 'table_macro' ? body : `SELECT ${body}`),
      params: (d.params as string[]).map(String),
    });
  }
});
afterAll(() => {
  con?.closeSync();
  db?.close();
});

function sqlOf(report: string): string | null {
  try {
    return readFileSync(new URL(`../../queries/reports/${report}.sql`, import.meta.url), 'utf8');
  } catch {
    return null; // a report computed otherwise
  }
}

describe('what each report reads', () => {
  it('names reports and streams that exist', () => {
    const streams = new Set<string>(
      BUILTIN_STREAMS.filter((d) => !BY_ENDPOINT.has(d.name)).map((d) => d.name),
    );
    const endpoints = new Set(
      BUILTIN_STREAMS.filter((d) => BY_ENDPOINT.has(d.name)).flatMap((d) => d.endpoints),
    );
    for (const [report, needs] of Object.entries(REPORT_STREAMS)) {
      expect(REPORT_NAMES, report).toContain(report);
      for (const s of needs) expect(streams.has(s) || endpoints.has(s), `${report}: ${s}`).toBe(true);
    }
    for (const s of CHECKED) expect(streams.has(s) || endpoints.has(s), s).toBe(true);
  });

  it('finds a read by any spelling, directly or through a model', async () => {
    for (const sql of [
      'SELECT count(*) FROM trips',
      'SELECT 1 FROM vehicles AS v LEFT JOIN trips AS t ON t.vehicle_id = v.vehicle_id',
      'SELECT 1 FROM vehicles v, "trips" t',
      'SELECT 1 FROM main.trips',
      'SELECT (SELECT max(start_time) FROM trips) AS x',
      "SELECT 1 FROM ledger WHERE 'trips' = stream",
      "SELECT 1 FROM ledger AS l WHERE l.stream IN ('odometer', 'trips')",
      "SELECT * FROM fleet_stream_day_coverage('a', 'UTC', DATE '2026-01-01', DATE '2026-01-31', now(), 'trips')",
      "SELECT * FROM logbook_trips('a', 'UTC', DATE '2026-01-01', DATE '2026-01-31')",
    ])
      expect([...(await streamsRead(sql))], sql).toEqual(['trips']);
    expect([...(await streamsRead("SELECT 'trips' AS label FROM vehicles"))]).toEqual([]);
  });

  it('a report whose SQL reads a stream declares that stream', async () => {
    for (const report of REPORT_NAMES) {
      const sql = sqlOf(report);
      if (sql === null || UNDECLARED[report]) continue;
      for (const stream of await streamsRead(sql))
        expect(REPORT_STREAMS[report] ?? [], `${report} reads ${stream}`).toContain(stream);
    }
  });

  it('a report declares a stream or endpoint only when its SQL reads it (no "not available" on a whole figure)', async () => {
    for (const [report, needs] of Object.entries(REPORT_STREAMS)) {
      const sql = sqlOf(report);
      if (sql === null) continue;
      const read = await streamsRead(sql);
      for (const s of needs) if (CHECKED.has(s)) expect(read.has(s), `${report} declares ${s}`).toBe(true);
    }
  });
});

describe('a refused carpool vehicle list', () => {
  it('marks only the reports that read the carpool vehicles, not those built on bookings', async () => {
    const fx = await openFixture();
    try {
      await fx.con.run(
        `INSERT INTO endpoint_access (account, endpoint, state, since, last_probed, last_status, message, streams, ledger_streams)
         VALUES ($1, 'GET /carpool/vehicles', 'not_permitted', now(), now(), 403, 'x', 'carpool', '')`,
        [ACCOUNT],
      );
      const refused = async (report: string) =>
        (await unavailableFor(fx.con, ACCOUNT, report, ZONE)).map((e) => e.endpoint);
      for (const report of ['kpis', 'trend', 'carpool_status', 'drivers', 'carpool'])
        expect(await refused(report), report).toEqual([]);
      for (const report of ['carpool_departments', 'setup_health', 'vehicles'])
        expect(await refused(report), report).toEqual(['GET /carpool/vehicles']);
    } finally {
      fx.close();
    }
  });
});
