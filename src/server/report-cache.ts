/**
 * Dashboard answers cached by data version. A report's rows change only when a sync commits (or
 * a rezone rewrites the ledger); the version is the fingerprint of the account's latest run and
 * ledger (queries/reports/meta_key.sql, the same one "complete through" is cached by). A key is
 * that version + account + zone + report + parameters + page; reports whose SQL reads `$now`
 * (coverage: today up to now) also key on the clock, so they are never served from another
 * moment. Least recently used entries go first, bounded by entry count and by the rows held.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../store/db.ts';
import { loadSql } from '../store/queries.ts';
import type { ReportParams } from '../reports/params.ts';
import { queryName, type ReportDef } from '../reports/registry.ts';
import { bindings, prepareBound, toJsonCell, type ReportPage, type ReportScope } from '../reports/run.ts';

export interface ReportCacheOptions {
  maxEntries: number;
  /** Rows held over all entries (a 100,000-row page is not worth keeping twice). */
  maxRows: number;
}

export const DEFAULT_REPORT_CACHE: ReportCacheOptions = { maxEntries: 256, maxRows: 200_000 };

interface Entry<T> {
  value: T;
  rows: number;
}

export interface ReportCache<T> {
  /** The cached answer for this call, or compute (and keep) it. `rowsOf` sizes the entry. */
  through(
    con: DuckDBConnection,
    key: { def: ReportDef; scope: ReportScope; params: ReportParams; page: ReportPage | undefined },
    compute: () => Promise<T>,
    rowsOf: (v: T) => number,
  ): Promise<T>;
  readonly size: number;
  readonly hits: number;
}

/**
 * The account's data version: latest run (id, end, outcome), the ledger's fingerprint and the
 * prices file last loaded (loaded without a run, yet it changes the costs).
 */
export async function dataVersion(con: DuckDBConnection, scope: ReportScope): Promise<string> {
  const values = bindings(scope, {} as ReportParams);
  const row = (
    await (await prepareBound(con, loadSql('reports/meta_key'), values)).runAndReadAll()
  ).getRowObjectsJS()[0];
  return JSON.stringify([toJsonCell(row?.run_key), toJsonCell(row?.ledger_key), toJsonCell(row?.prices_key)]);
}

/** Everything GET /api/status reads, over every account (queries/status/data_version.sql). */
export async function statusVersion(con: DuckDBConnection): Promise<string> {
  const row = (await con.runAndReadAll(loadSql('status/data_version'))).getRowObjectsJS()[0];
  return String(row?.version ?? '');
}

export interface VersionedMemo<T> {
  /** The value kept for (version, key), or compute and keep it (the oldest goes beyond `max`). */
  through(version: string, key: string, compute: () => Promise<T>): Promise<T>;
}

export function createVersionedMemo<T>(max: number): VersionedMemo<T> {
  const entries = new Map<string, T>();
  return {
    async through(version, key, compute) {
      const k = `${version}\u0000${key}`;
      if (entries.has(k)) return entries.get(k)!;
      const value = await compute();
      entries.set(k, value);
      if (entries.size > max) entries.delete(entries.keys().next().value!);
      return value;
    },
  };
}

/**
 * A few idle connections kept for reuse, so the report macros a connection defines once
 * (prepareReportConnection) are not defined again on every call.
 */
export function createConnectionPool(db: Database, idleMax = 4) {
  const idle: DuckDBConnection[] = [];
  return {
    acquire: async () => idle.pop() ?? (await db.connect()),
    /** `ok` false: the connection may be in a failed state; it is closed. */
    release(con: DuckDBConnection, ok: boolean) {
      if (ok && idle.length < idleMax) idle.push(con);
      else con.closeSync();
    },
  };
}

export function createReportCache<T>(opts: ReportCacheOptions = DEFAULT_REPORT_CACHE): ReportCache<T> {
  const entries = new Map<string, Entry<T>>();
  let rowsHeld = 0;
  let hits = 0;
  const readsNow = new Map<string, boolean>();
  const usesNow = (def: ReportDef) => {
    let v = readsNow.get(def.name);
    if (v === undefined) readsNow.set(def.name, (v = /\$now\b/.test(loadSql(queryName(def)))));
    return v;
  };
  return {
    async through(con, { def, scope, params, page }, compute, rowsOf) {
      const key = JSON.stringify([
        await dataVersion(con, scope),
        scope.account,
        scope.zone,
        def.name,
        params,
        page ?? null,
        usesNow(def) ? scope.nowMs : null,
      ]);
      const hit = entries.get(key);
      if (hit) {
        hits++;
        entries.delete(key); // most recently used last
        entries.set(key, hit);
        return hit.value;
      }
      const value = await compute();
      const rows = rowsOf(value);
      if (rows > opts.maxRows) return value;
      entries.set(key, { value, rows });
      rowsHeld += rows;
      for (const [k, e] of entries) {
        if (entries.size <= opts.maxEntries && rowsHeld <= opts.maxRows) break;
        entries.delete(k);
        rowsHeld -= e.rows;
      }
      return value;
    },
    get size() {
      return entries.size;
    },
    get hits() {
      return hits;
    },
  };
}
