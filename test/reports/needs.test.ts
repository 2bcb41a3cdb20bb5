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
import { FACT_COLUMN_STREAMS, REPORT_STREAMS, unavailableFor } from '../../src/reports/needs.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import { ACCOUNT, openFixture, ZONE } from '../helpers/report-fixture.ts';

/** Streams whose endpoints are declared one by one (a report needs only the part it reads). */
const BY_ENDPOINT = new Set(['carpool']);
/** The streams checked here: every one but vehicles (the fleet list every report reads). */
const CHECKED = new Set(
  BUILTIN_STREAMS.flatMap((d) => (BY_ENDPOINT.has(d.name) ? d.endpoints : [d.name])).filter(
    (s) => s !== 'vehicles',
  ),
);
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
/** Reports that need not declare what they read, with why. */
const UNDECLARED: Record<string, string> = {
  unknown_values:
    'lists the values the API sent that we did not expect, from every table: a refused endpoint has none (no figure shown as zero)',
  coverage:
    'the coverage calendar of the odometer stream: a day a refused endpoint never pulled shows as not synced, which is what it says',
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
  /** Column names referenced (the daily facts' columns say which stream a figure comes from). */
  columns: Set<string>;
  /** Per argument: the text constants in it ('x', or a list ['x', 'y']). */
  calls: { name: string; args: string[][] }[];
  /**
   * The branches of a UNION that tags its rows with a `stream` column: the stream value of each
   * (null: not a constant, the streams it reads say) and what it reads, so that a caller keeping
   * one stream by value reads only that branch.
   */
  branches: { values: string[] | null; reads: Reads }[];
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

const texts = (n: unknown): string[] => {
  const o = n as Node | null;
  if (o?.class === 'FUNCTION' && o.function_name === 'list_value')
    return ((o.children ?? []) as unknown[]).flatMap(texts);
  const t = text(n);
  return t === null ? [] : [t];
};
/** The SELECTs a set operation joins (its leaves, in order). */
const leaves = (n: Node): Node[] =>
  n.type === 'SET_OPERATION_NODE' ? [...leaves(n.left as Node), ...leaves(n.right as Node)] : [n];

/** The tables, `stream` values, columns, calls and tagged branches of one parse tree. */
function readsOfTree(tree: unknown): Reads {
  const out: Reads = {
    tables: new Set(),
    streamValues: new Set(),
    columns: new Set(),
    calls: [],
    branches: [],
  };
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== 'object') return;
    const o = n as Node;
    if (o.type === 'SET_OPERATION_NODE') {
      const all = leaves(o);
      const at = ((all[0]!.select_list ?? []) as Node[]).findIndex((e) => e.alias === 'stream');
      if (at >= 0) {
        for (const leaf of all) {
          const v = text((leaf.select_list as Node[])[at]);
          out.branches.push({ values: v === null ? null : [v], reads: readsOfTree(leaf) });
        }
        return;
      }
    }
    if (o.type === 'BASE_TABLE') out.tables.add(String(o.table_name));
    if (o.class === 'COLUMN_REF') out.columns.add((o.column_names as string[]).at(-1)!);
    if (o.class === 'FUNCTION')
      out.calls.push({ name: String(o.function_name), args: ((o.children ?? []) as unknown[]).map(texts) });
    // stream = 'x' (either side), stream IN ('x', 'y')
    const operands = [o.left, o.right, ...((o.children ?? []) as unknown[])];
    if (operands.some(isStreamColumn))
      for (const v of operands.map(text)) if (v !== null) out.streamValues.add(v);
    Object.values(o).forEach(walk);
  };
  walk(tree);
  return out;
}

async function readsOf(sql: string): Promise<Reads> {
  const r = await con.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS j', [
    sql.trim().replace(/;\s*$/, ''),
  ]);
  const tree = JSON.parse(String(r.getRowObjectsJS()[0]!.j)) as Node;
  if (tree.error) throw new Error(`${String(tree.error_message)} in: ${sql.slice(0, 120)}`);
  return readsOfTree(tree);
}

const streamParams = (name: string) =>
  (macros.get(name)?.params ?? []).flatMap((p, i) => (/stream/.test(p) ? [i] : []));
const ledgerValuesOf = (streams: Set<string>) =>
  BUILTIN_STREAMS.filter((d) => streams.has(d.name)).flatMap((d) => d.ledgerStreams);

/**
 * The checked streams `r` reads: its tables, its `stream` values, and those of the macros it
 * calls; of a UNION tagged by stream, the branches whose stream `keep` (the values the report
 * compares `stream` with; empty: every branch) names; of the daily facts, the streams the
 * columns the report names come from (FACT_COLUMN_STREAMS).
 */
function streamsOf(r: Reads, keep: ReadonlySet<string>, found = new Set<string>()): Set<string> {
  const add = (s: string | undefined) => s !== undefined && CHECKED.has(s) && found.add(s);
  // a macro told which streams to read (stream_name, streams, base_stream): those named here, and
  // those its own calls name beside them ([base_stream, 'fuel_consumed'])
  const named = (x: Reads) => {
    for (const c of x.calls) {
      const at = streamParams(c.name);
      if (!at.length) continue;
      for (const i of at) for (const v of c.args[i] ?? []) add(streamOfLedger.get(v));
      named(macros.get(c.name)!.reads);
    }
  };
  r.tables.forEach((t) => add(streamOfTable.get(t)));
  r.streamValues.forEach((v) => add(streamOfLedger.get(v)));
  for (const b of r.branches) {
    const values = b.values ?? ledgerValuesOf(streamsOf(b.reads, new Set()));
    if (!keep.size || values.some((v) => keep.has(v))) streamsOf(b.reads, keep, found);
  }
  for (const c of r.calls) {
    const m = macros.get(c.name);
    if (!m) continue;
    if (LOOKUPS[c.name]) LOOKUPS[c.name]!.forEach(add);
    else if (streamParams(c.name).length) named({ ...r, calls: [c] });
    else streamsOf(m.reads, keep, found);
  }
  return found;
}

/** The checked streams a report's SQL reads (streamsOf), the daily facts' columns included. */
async function streamsRead(sql: string): Promise<Set<string>> {
  const r = await readsOf(sql);
  const found = streamsOf(r, r.streamValues);
  const facts = (x: Reads): boolean =>
    x.tables.has('daily_facts') ||
    x.branches.some((b) => facts(b.reads)) ||
    x.calls.some((c) => !LOOKUPS[c.name] && macros.has(c.name) && facts(macros.get(c.name)!.reads));
  // the columns named by the report over the facts, and by each model that reads the facts for it
  // (vehicle_month_costs sums toll_charged from vehicle_day_facts)
  const addColumns = (x: Reads, seen: Set<string>) => {
    for (const col of x.columns)
      for (const s of FACT_COLUMN_STREAMS[col] ?? []) if (CHECKED.has(s)) found.add(s);
    for (const c of x.calls) {
      const m = macros.get(c.name);
      if (!m || LOOKUPS[c.name] || seen.has(c.name) || !facts(m.reads)) continue;
      seen.add(c.name);
      addColumns(m.reads, seen);
    }
  };
  if (facts(r)) addColumns(r, new Set());
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
      "SELECT 1 FROM ledger AS l WHERE l.stream IN ('trips', 'sometime')",
      "SELECT * FROM fleet_stream_day_coverage('a', 'UTC', DATE '2026-01-01', DATE '2026-01-31', now(), 'trips')",
    ])
      expect([...(await streamsRead(sql))], sql).toEqual(['trips']);
    expect([...(await streamsRead("SELECT 'trips' AS label FROM vehicles"))]).toEqual([]);
  });

  it('of a model tagging its rows by stream, reads only the streams the report keeps', async () => {
    const read = async (sql: string) => [...(await streamsRead(sql))].sort();
    const left = "left_out_windows('a', 'UTC', DATE '2026-01-01', DATE '2026-01-31')";
    expect(await read(`SELECT * FROM ${left} WHERE stream = 'odometer'`)).toEqual(['odometer']);
    expect(await read(`SELECT * FROM ${left} WHERE stream = 'fuel_consumed'`)).toEqual(['fuel']);
    expect(await read(`SELECT * FROM ${left}`)).toEqual(['fuel', 'odometer']);
    // a list of streams, a stream beside the one the caller names
    const cov = "'a', 'UTC', DATE '2026-01-01', DATE '2026-01-31', now()";
    expect(await read(`SELECT * FROM vehicle_streams_day_coverage(${cov}, ['visits', 'trips'])`)).toEqual([
      'trips',
      'visits',
    ]);
    const days = "'a', 'UTC', DATE '2026-01-01', DATE '2026-01-31'";
    expect(await read(`SELECT * FROM vehicle_fuel_settled_days(${days}, 'odometer')`)).toEqual([
      'fuel',
      'odometer',
    ]);
    // the daily facts: by the row's stream and by the column read
    const facts = "vehicle_day_facts('a', 'UTC', DATE '2026-01-01', DATE '2026-01-31')";
    expect(await read(`SELECT sum(windows) FROM ${facts} WHERE stream = 'odometer'`)).toEqual(['odometer']);
    expect(await read(`SELECT sum(toll_passages) FROM ${facts}`)).toEqual(['geofences', 'visits']);
    expect(await read(`SELECT sum(toll_passages) FROM vehicles AS toll_passages`)).toEqual([]);
  });

  it('knows the stream under every column of the daily facts (a column added must say where it comes from)', async () => {
    const columns = async (sql: string) =>
      (await con.runAndReadAll(sql)).getRowObjectsJS().map((r) => String(r.column_name));
    expect((await columns('DESCRIBE daily_facts')).sort()).toEqual(Object.keys(FACT_COLUMN_STREAMS).sort());
    const model = await columns(
      "DESCRIBE SELECT * FROM daily_facts_of('a', 'UTC', NULL, DATE '2026-01-01', DATE '2026-01-01')",
    );
    for (const c of model) expect(Object.keys(FACT_COLUMN_STREAMS), c).toContain(c);
    for (const streams of Object.values(FACT_COLUMN_STREAMS))
      for (const s of streams) expect(CHECKED, s).toContain(s);
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
