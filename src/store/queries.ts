/**
 * Named queries: `queries/<name>.sql`, one statement per file, bound parameters only ($1, $2, …
 * or $name). TypeScript names a query; it never builds SQL from input.
 */
import type { DuckDBConnection, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const QUERIES_DIR = fileURLToPath(new URL('../../queries/', import.meta.url));

const cache = new Map<string, string>();

/** The text of `queries/<name>.sql` (name without the extension, e.g. `reports/mileage`). */
export function loadSql(name: string): string {
  const file = name.endsWith('.sql') ? name : `${name}.sql`;
  let sql = cache.get(file);
  if (sql === undefined) {
    if (!/^[a-z0-9_]+(\/[a-z0-9_]+)*\.sql$/.test(file)) throw new Error(`bad query name: ${name}`);
    sql = readFileSync(join(QUERIES_DIR, file), 'utf8');
    cache.set(file, sql);
  }
  return sql;
}

export function listSchemaFiles(): string[] {
  return readdirSync(join(QUERIES_DIR, 'schema'))
    .filter((f) => f.endsWith('.sql'))
    .sort();
}

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;

/** Runs a named query and returns rows as JSON-safe objects (timestamps as strings, bigints as numbers or strings). */
export async function queryJson(con: DuckDBConnection, name: string, params?: Params) {
  const reader = await con.runAndReadAll(loadSql(name), params);
  return reader.getRowObjectsJson();
}

/**
 * Runs a named query and returns rows as JS values (Date, bigint, number, string). `types`: the
 * parameters' types where a value does not say it (a list of numbers that are not all whole).
 */
export async function queryJs(con: DuckDBConnection, name: string, params?: Params, types?: DuckDBType[]) {
  const reader = await con.runAndReadAll(loadSql(name), params, types);
  return reader.getRowObjectsJS();
}

export async function execute(con: DuckDBConnection, name: string, params?: Params): Promise<void> {
  await con.run(loadSql(name), params);
}
