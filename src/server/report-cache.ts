/**
 * Dashboard answers cached by data version. A report's rows change only when a sync commits (or
 * a rezone rewrites the ledger); the version is the fingerprint of the account's latest run and
 * ledger (queries/reports/meta_key.sql, the same one "complete through" is cached by). A key is
 * that version + account + zone + report + parameters + page; reports whose SQL reads `$now`
 * also key on the clock (nowKey): on the local day when they read it only as the coverage
 * macros' "days ended by now", else on the instant, so they are never served from another
 * moment. Least recently used entries go first, bounded by entry count and by the bytes held
 * (answers are kept as their JSON text: a 1,000-row page of trips is ~0.4 MB as text and took
 * ~3× that as row objects).
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { statSync } from 'node:fs';
import type { Database } from '../store/db.ts';
import { isServerDatabase } from './drain.ts';
import { loadSql } from '../store/queries.ts';
import type { ReportParams } from '../reports/params.ts';
import { queryName, type ReportDef } from '../reports/registry.ts';
import { bindNamed, bindings, toJsonCell, type ReportPage, type ReportScope } from '../reports/run.ts';
import { localDate, offsetMinutes } from '../time.ts';

export interface ReportCacheOptions {
  maxEntries: number;
  /** Bytes held over all entries (as `sizeOf` counts them); a larger answer is not kept. */
  maxBytes: number;
}

export const DEFAULT_REPORT_CACHE: ReportCacheOptions = { maxEntries: 256, maxBytes: 32 << 20 };

interface Entry<T> {
  value: T;
  bytes: number;
}

export interface ReportCache<T> {
  /**
   * The cached answer for this call at the account's data `version` (dataVersion), or compute (and
   * keep) it. `sizeOf` sizes the entry in bytes.
   */
  through(
    version: string,
    key: { def: ReportDef; scope: ReportScope; params: ReportParams; page: ReportPage | undefined },
    compute: () => Promise<T>,
    sizeOf: (v: T) => number,
  ): Promise<T>;
  readonly size: number;
  readonly hits: number;
}

/**
 * The account's data version: latest run (id, end, outcome), the ledger's fingerprint, the
 * prices file last loaded (loaded without a run, yet it changes the costs) and the service plan
 * and services recorded (service_due).
 */
export async function dataVersion(con: DuckDBConnection, scope: ReportScope): Promise<string> {
  const ps = bindNamed(await keptStatement(con, 'reports/meta_key'), bindings(scope, {} as ReportParams));
  const row = (await ps.runAndReadAll()).getRowObjectsJS()[0];
  return JSON.stringify([
    toJsonCell(row?.run_key),
    toJsonCell(row?.ledger_key),
    toJsonCell(row?.prices_key),
    toJsonCell(row?.service_key),
  ]);
}

/**
 * A write is seen this long after the database file or its WAL last changed: until then every
 * call asks the database for its version (a commit's WAL is written just before the commit is
 * visible to other connections).
 */
export const SETTLED_MS = 2000;

/** The database file and its WAL as they are on disk (inode, size, modification time) and the newer mtime. */
function readStamp(path: string): { parts: string; newestMs: number } {
  let newestMs = 0;
  const parts: string[] = [];
  for (const f of [path, `${path}.wal`]) {
    const st = statSync(f, { bigint: true, throwIfNoEntry: false });
    if (!st) {
      parts.push('-');
      continue;
    }
    parts.push(`${st.ino}:${st.size}:${st.mtimeNs}`);
    newestMs = Math.max(newestMs, Number(st.mtimeMs));
  }
  return { parts: parts.join('|'), newestMs };
}

/**
 * The database file and its WAL as they are on disk (size, modification time, inode): every
 * commit appends to the WAL and every checkpoint rewrites the file, and only this process can
 * write them (DuckDB's lock). Null for an in-memory database (lake mode) and while either was
 * written less than SETTLED_MS ago by the real clock (file times are real time).
 */
export function fileStamp(path: string, wallNow: () => number = Date.now): () => string | null {
  if (path === ':memory:') return () => null;
  return () => {
    const { parts, newestMs } = readStamp(path);
    return wallNow() - newestMs < SETTLED_MS ? null : parts;
  };
}

/** The same files' stamp whether settled or not: it moves with every write ('' in memory). */
export function filesWritten(path: string): () => string {
  if (path === ':memory:') return () => '';
  return () => readStamp(path).parts;
}

/**
 * A version query asked again only when the files' stamp moved (fileStamp): at 5,000 vehicles the
 * data version (a pass over the account's ledger) was ~10 ms of CPU on each dashboard call, the
 * larger part of a cached answer. Without a stamp (in memory, just written) it asks every time,
 * except that with `written` (filesWritten) a caller shares the same key's query already running
 * when nothing was written since it began, so its answer is as fresh as a query of the caller's
 * own: while a sync wrote, 16 clients' calls each asked the database the same question and each
 * waited behind the sync's statements.
 */
export function createStampedVersions<T = string>(stamp: () => string | null, written?: () => string) {
  const kept = new Map<string, { stamp: string; version: T }>();
  const asking = new Map<string, { written: string; answer: Promise<T> }>();
  /** The key's query already running since the files were last written, or a new one. */
  const ask = (key: string, query: () => Promise<T>, w: string | undefined): Promise<T> => {
    const running = asking.get(key);
    if (w !== undefined && running?.written === w) return running.answer;
    const answer = query();
    if (w === undefined) return answer;
    const mine = { written: w, answer };
    asking.set(key, mine);
    const done = () => void (asking.get(key) === mine && asking.delete(key));
    void answer.then(done, done);
    return answer;
  };
  return async (key: string, query: () => Promise<T>): Promise<T> => {
    const now = stamp();
    const k = kept.get(key);
    if (now !== null && k?.stamp === now) return k.version;
    const version = await ask(key, query, written?.());
    if (now !== null) kept.set(key, { stamp: now, version });
    else kept.delete(key);
    return version;
  };
}

/** Everything GET /api/status reads, over every account (queries/status/data_version.sql). */
export async function statusVersion(con: DuckDBConnection): Promise<string> {
  const row = (await (await keptStatement(con, 'status/data_version')).runAndReadAll()).getRowObjectsJS()[0];
  return String(row?.version ?? '');
}

/**
 * The version queries run on every dashboard call, cached or not: each is prepared once per
 * connection (the pool keeps connections) and only bound again, which saves ~20 % of the call.
 */
const statements = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();
async function keptStatement(con: DuckDBConnection, query: string): Promise<DuckDBPreparedStatement> {
  let mine = statements.get(con);
  if (!mine) statements.set(con, (mine = new Map()));
  let ps = mine.get(query);
  if (!ps) mine.set(query, (ps = await con.prepare(loadSql(query))));
  return ps;
}

export interface VersionedMemo<T> {
  /**
   * The value kept for (version, key), or compute and keep it (the oldest goes beyond `max`).
   * One computation per (version, key) at a time: callers that arrive while it runs share it.
   * While `serveLatest()` holds (a sync is writing, so the version moves with every committed
   * group), a caller whose (version, key) is still being computed gets the latest value kept for
   * its `family` (the key without the parts that change by themselves, such as the minute) instead
   * of waiting; `compute` must then not use anything of the caller's that the
   * caller releases when it returns (its own connection, say).
   */
  through(version: string, key: string, compute: () => Promise<T>, family?: string): Promise<T>;
  /**
   * The value last computed for `family` (default: the key) while `serveLatest()` holds, else
   * undefined: a caller can answer with it without asking the database for the version at all.
   */
  peek(family: string): T | undefined;
}

export function createVersionedMemo<T>(
  max: number,
  serveLatest: () => boolean = () => false,
): VersionedMemo<T> {
  const entries = new Map<string, T>();
  const running = new Map<string, Promise<T>>();
  const latest = new Map<string, T>();
  return {
    peek(family) {
      return serveLatest() ? latest.get(family) : undefined;
    },
    async through(version, key, compute, family = key) {
      const k = `${version}\u0000${key}`;
      if (entries.has(k)) return entries.get(k)!;
      let p = running.get(k);
      if (!p) {
        p = (async () => {
          try {
            const value = await compute();
            entries.set(k, value);
            latest.delete(family); // most recent last
            latest.set(family, value);
            if (entries.size > max) entries.delete(entries.keys().next().value!);
            if (latest.size > max) latest.delete(latest.keys().next().value!);
            return value;
          } finally {
            running.delete(k);
          }
        })();
        running.set(k, p);
      }
      if (serveLatest() && latest.has(family)) {
        p.catch(() => {}); // its own callers (if any) see the failure; this one is answered
        return latest.get(family)!;
      }
      return p;
    },
  };
}

/**
 * A few idle connections kept for reuse, so the report macros a connection defines once
 * (prepareModelConnection, src/store/models.ts) are not defined again on every call.
 */
export function createConnectionPool(db: Database, idleMax = 4) {
  const idle: DuckDBConnection[] = [];
  // The server's drain (drain.ts): the idle ones closed, and every one released after it.
  let draining = false;
  if (isServerDatabase(db))
    db.onDrain(() => {
      draining = true;
      for (const con of idle.splice(0)) con.closeSync();
    });
  return {
    acquire: async () => idle.pop() ?? (await db.connect()),
    /** `ok` false: the connection may be in a failed state; it is closed. */
    release(con: DuckDBConnection, ok: boolean) {
      if (ok && !draining && idle.length < idleMax) idle.push(con);
      else con.closeSync();
    },
  };
}

/**
 * How a report's SQL reads `$now`: not at all, only as the coverage macros' `now_ts` (which say
 * which local days have ended: ended_local_days, queries/models/coverage.sql), or otherwise.
 */
export type NowUse = 'none' | 'day' | 'instant';

/** `sql` without its `--` comments. */
const uncommented = (sql: string) => sql.replace(/--[^\n]*/g, '');

/** The name of the call whose argument list holds position `at` of `sql`, or null. */
function enclosingCall(sql: string, at: number): string | null {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const ch = sql[i];
    if (ch === ')') depth++;
    else if (ch === '(' && depth-- === 0) return /([a-z_][a-z0-9_]*)\s*$/i.exec(sql.slice(0, i))?.[1] ?? null;
  }
  return null;
}

/** The macros of queries/models/coverage.sql (each reads its `now_ts` only through ended_local_days). */
let coverageMacros: Set<string> | null = null;
export function coverageMacroNames(): Set<string> {
  coverageMacros ??= new Set(
    [...loadSql('models/coverage').matchAll(/CREATE OR REPLACE TEMP MACRO (\w+)/g)].map((m) => m[1]!),
  );
  return coverageMacros;
}

/**
 * 'day' when every `$now` of `sql` is an argument of a coverage macro: its answer then changes
 * with the local day only (the days ended by now), so a kept answer serves the whole day;
 * 'instant' for any other use (service_due's "as of now").
 */
export function nowUse(sql: string): NowUse {
  const text = uncommented(sql);
  const at = [...text.matchAll(/\$now\b/g)].map((m) => m.index);
  if (!at.length) return 'none';
  const macros = coverageMacroNames();
  return at.every((i) => macros.has(enclosingCall(text, i) ?? '')) ? 'day' : 'instant';
}

const HOUR_MS = 3_600_000;

/**
 * The part of an answer's key that the clock decides: for 'day' the local day in the account's
 * zone (the days ended by now are those before it), except within two hours of a change of the
 * zone's offset (a midnight that a DST change moves or skips), where the instant keys it as for
 * 'instant', so no answer is served from another moment than the one it was computed for.
 */
export function nowKey(use: NowUse, scope: Pick<ReportScope, 'nowMs' | 'zone'>): string | number | null {
  if (use === 'none') return null;
  if (use === 'day') {
    const off = offsetMinutes(scope.nowMs, scope.zone);
    if (
      offsetMinutes(scope.nowMs - 2 * HOUR_MS, scope.zone) === off &&
      offsetMinutes(scope.nowMs + 2 * HOUR_MS, scope.zone) === off
    )
      return `day ${localDate(scope.nowMs, scope.zone)}`;
  }
  return scope.nowMs;
}

export function createReportCache<T>(opts: ReportCacheOptions = DEFAULT_REPORT_CACHE): ReportCache<T> {
  const entries = new Map<string, Entry<T>>();
  const computing = new Map<string, Promise<T>>();
  let bytesHeld = 0;
  let hits = 0;
  const readsNow = new Map<string, NowUse>();
  const usesNow = (def: ReportDef) => {
    let v = readsNow.get(def.name);
    if (v === undefined) readsNow.set(def.name, (v = nowUse(loadSql(queryName(def)))));
    return v;
  };
  return {
    async through(version, { def, scope, params, page }, compute, sizeOf) {
      const key = JSON.stringify([
        version,
        scope.account,
        scope.zone,
        def.name,
        params,
        page ?? null,
        nowKey(usesNow(def), scope),
      ]);
      const hit = entries.get(key);
      if (hit) {
        hits++;
        entries.delete(key); // most recently used last
        entries.set(key, hit);
        return hit.value;
      }
      // One computation per key at a time: 16 clients asking for the same page after a commit
      // share it rather than each running the report.
      const pending = computing.get(key);
      if (pending) return pending;
      const p = compute();
      computing.set(key, p);
      let value: T;
      try {
        value = await p;
      } finally {
        computing.delete(key);
      }
      const bytes = sizeOf(value);
      if (bytes > opts.maxBytes || entries.has(key)) return value;
      entries.set(key, { value, bytes });
      bytesHeld += bytes;
      for (const [k, e] of entries) {
        if (entries.size <= opts.maxEntries && bytesHeld <= opts.maxBytes) break;
        entries.delete(k);
        bytesHeld -= e.bytes;
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
