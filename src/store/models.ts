/**
 * The model layer's floor, below both the sync and the reports: a connection prepared here has
 * the temp macros of `queries/reports/macros/` (ISO local time, vehicle departments, "complete
 * through", spreadsheet-safe text; the models use some of them) and then the table macros of
 * `queries/models/`, the business rules each written once. The reports select from them; the sync
 * asks them about an answer (src/sync/rules.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadSql } from './queries.ts';

const MACROS = [
  'iso_local',
  'xl_text',
  'vehicle_departments',
  'complete_through',
  'driver_names',
  'trip_lookups',
];
/**
 * The model layer, in dependency order: the selected-vehicles filter, the reason-code
 * vocabulary, the local calendar, the odometer and fuel windows classified, the windows left out
 * of totals (from those two), the toll passage, prices and charges (from the toll passages), and
 * the coverage of every vehicle-day (which figures rest on synced days), …, and the daily facts
 * computed from them (what the day- and month-grain reports read).
 */
export const MODELS = [
  'selection',
  'reason_codes',
  'local_calendar',
  'odometer_windows',
  'fuel_windows',
  'left_out_windows',
  'toll_passages',
  'prices',
  'working_hours',
  'site_visits',
  'coverage',
  'trip_day_facts',
  'logbook',
  'fuel_drops',
  'booking_status',
  'unknown_values',
  'driver_scores',
  'fuel_efficiency',
  'daily_facts',
  'activity_days',
  'service_due',
];
/** One statement of the macro and model files, the names it defines and the names it calls. */
interface ModelStatement {
  sql: string;
  defines: string[];
  words: Set<string>;
}

const DEFINES = /\bCREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+(?:MACRO|VIEW|TABLE)\s+([a-z_][a-z0-9_]*)/gi;
const wordsOf = (sql: string) => new Set(sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []);
/** SQL without its `--` comments (prose may name a macro it does not call). */
const code = (sql: string) => sql.replace(/--[^\n]*/g, '');

let statements: ModelStatement[] | null = null;
const MODEL_FILES = [...MACROS.map((m) => `reports/macros/${m}`), ...MODELS.map((m) => `models/${m}`)];

/**
 * The macro and model files (in the order above) as single statements: a file's statements end
 * with `;` at the end of a code line. Each knows the macros it defines and every word it uses.
 */
function modelStatements(): ModelStatement[] {
  if (statements) return statements;
  statements = MODEL_FILES.flatMap((f) =>
    code(loadSql(f))
      .split(/;[ \t]*(?:\n|$)/)
      .filter((sql) => sql.trim() !== '')
      .map((sql) => ({
        sql,
        defines: [...sql.matchAll(DEFINES)].map((m) => m[1]!.toLowerCase()),
        words: wordsOf(sql),
      })),
  );
  return statements;
}

/** Statements a connection has defined (by their index in modelStatements()). */
const defined = new WeakMap<DuckDBConnection, Set<number>>();

/** The statements that define what `words` use, and what those use in turn, in file order. */
function closure(words: Set<string>): number[] {
  const all = modelStatements();
  const by = new Map<string, number[]>();
  all.forEach((s, i) => s.defines.forEach((n) => by.set(n, [...(by.get(n) ?? []), i])));
  const need = new Set<number>();
  const visit = (ws: Set<string>) => {
    for (const w of ws)
      for (const i of by.get(w) ?? [])
        if (!need.has(i)) {
          need.add(i);
          visit(all[i]!.words);
        }
  };
  visit(words);
  return [...need].sort((a, b) => a - b);
}

const needsOf = new Map<string, number[]>();

/**
 * Defines the report macros and the models on a connection (once per connection). With `queries`
 * (names of query files), only the macros those queries call and what those call in turn: a
 * writer of the sync needs the coverage and the daily facts, not the reports' macros (defining
 * every one costs ~50 ms of CPU a connection, and a sync opens one writer per ledger stream).
 */
export async function prepareModelConnection(
  con: DuckDBConnection,
  queries?: readonly string[],
): Promise<void> {
  const key = queries ? queries.join(',') : '*';
  let need = needsOf.get(key);
  if (!need) {
    need = queries
      ? closure(new Set(queries.flatMap((q) => [...wordsOf(code(loadSql(q)))])))
      : modelStatements().map((_, i) => i);
    needsOf.set(key, need);
  }
  let done = defined.get(con);
  if (!done) defined.set(con, (done = new Set()));
  const all = modelStatements();
  if (!queries && done.size === 0) {
    // Every one: file by file, one call each (cheaper than a call per statement).
    for (const f of MODEL_FILES) await con.run(loadSql(f));
    for (const i of need) done.add(i);
    return;
  }
  for (const i of need)
    if (!done.has(i)) {
      await con.run(all[i]!.sql);
      done.add(i);
    }
}

/**
 * Puts the daily facts computed now from the raw rows in the place of the stored ones on this
 * connection (queries/sync/facts_use_raw.sql): every report over the facts then runs over the
 * raw tables, through the same models. For the comparison test; nothing in the product calls it.
 */
export async function useRawFacts(con: DuckDBConnection): Promise<void> {
  await prepareModelConnection(con);
  await con.run(loadSql('sync/facts_use_raw'));
}
