/**
 * Bulk writes through the DuckDB Appender (never a row-at-a-time INSERT loop).
 *
 * `appendRows` appends plain objects to a table in its column order, converting by the column's
 * DuckDB type: timestamps are epoch milliseconds (or Date), BIGINT accepts number or bigint,
 * JSON/VARCHAR accept strings. `upsertRows` keeps one row per key, stages the rows in a
 * per-connection temp table and merges them in one statement, so records the API returns twice
 * (a trip seen by two windows, a fill listed twice) are stored once.
 */
import { setImmediate } from 'node:timers/promises';
import { DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';
import { buildChunk } from './chunk.ts';
import { RowBlock, type Cell, type Column, type Row } from './rows.ts';

export type { Cell, Row } from './rows.ts';

interface ColumnInfo {
  name: string;
  typeId: DuckDBTypeId;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

const columnCache = new WeakMap<DuckDBConnection, Map<string, ColumnInfo[]>>();

async function columnsOf(con: DuckDBConnection, table: string, schema: string, catalog?: string) {
  let perCon = columnCache.get(con);
  if (!perCon) columnCache.set(con, (perCon = new Map()));
  const key = `${catalog ?? ''}.${schema}.${table}`;
  let cols = perCon.get(key);
  if (!cols) {
    const appender = await con.createAppender(table, schema, catalog ?? null);
    // The table's own result columns (information_schema scans the whole catalog: 1–100 ms).
    for (const name of [table, schema, catalog ?? 'main'])
      if (!IDENT.test(name)) throw new FleetsyncError('E_DB', `bad table name ${name}`);
    const reader = await con.runAndReadAll(
      `SELECT * FROM ${catalog ? `${catalog}.` : ''}${schema}.${table} LIMIT 0`,
    );
    const names = reader.columnNames();
    cols = names.map((name, i) => ({ name, typeId: appender.columnType(i).typeId }));
    appender.closeSync();
    perCon.set(key, cols);
  }
  return cols;
}

const toMs = (v: Cell): number => (v instanceof Date ? v.getTime() : Number(v));

/** A whole number for an int64 column: a number while it is exact, else a bigint (NaN throws). */
function toInt64(v: Cell): number | bigint {
  if (typeof v === 'bigint') return v;
  const n = Math.trunc(Number(v));
  return Number.isSafeInteger(n) ? n : BigInt(n);
}

/**
 * Converts one JS cell to what the chunk writer lays out for its column (chunk.ts): numbers
 * (epoch microseconds for timestamps, days for dates), strings, booleans; for a column type the
 * writer does not lay out itself (JSON where it has its own type id), a string.
 */
function toValue(col: ColumnInfo, v: Cell, table: string): unknown {
  if (v === null || v === undefined) return null;
  switch (col.typeId) {
    case DuckDBTypeId.VARCHAR:
      return typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : String(v);
    case DuckDBTypeId.BIGINT:
      return toInt64(v);
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.DOUBLE:
      return Number(v);
    case DuckDBTypeId.BOOLEAN:
      return Boolean(v);
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP:
      return toInt64(Math.round(toMs(v)) * 1000);
    case DuckDBTypeId.DATE:
      return Math.floor(toMs(v) / 86_400_000);
    default:
      // JSON is a VARCHAR alias with its own type id in some versions.
      if (typeof v === 'string') return v;
      throw new FleetsyncError(
        'E_DB',
        `cannot append to ${table}.${col.name}: unsupported column type ${col.typeId}`,
      );
  }
}

/** Rows per data chunk: DuckDB's vector size. */
const CHUNK_ROWS = 2048;

/**
 * Appends rows to `table` (columns not present in a row are NULL). Returns the count. Rows go in
 * column-wise, one data chunk of 2,048 rows at a time, each column laid out in one buffer
 * (chunk.ts). Rows given as objects are read through a block that wraps them (rows.ts), a
 * chunk at a time, so a long iterable is never held whole.
 */
export async function appendRows(
  con: DuckDBConnection,
  table: string,
  rows: Iterable<Row> | RowBlock,
  opts: { schema?: string; catalog?: string } = {},
): Promise<number> {
  const schema = opts.schema ?? 'main';
  const cols = await columnsOf(con, table, schema, opts.catalog);
  const ap = await con.createAppender(table, schema, opts.catalog ?? null);
  const types = cols.map((_, i) => ap.columnType(i));
  // Rows [start, start + count) of the block as one chunk, each cell read from its column.
  const put = (block: RowBlock, start: number, count: number) => {
    const chunk = buildChunk(
      cols.map((col, ci) => {
        const c = block.column(col.name);
        return { type: types[ci]!, valueAt: (i: number) => toValue(col, c.get(block.row(start + i)), table) };
      }),
      count,
    );
    ap.appendDataChunk(chunk);
    ap.flushSync();
  };
  let n = 0;
  try {
    // The appender's calls run on this thread: a chunk at a time, then the event loop gets a
    // turn, so a 20,000-row window no longer holds every other answer of a server for its
    // whole append (`/api/status` waited up to 0.45 s behind a sync's trips in the load test).
    if (rows instanceof RowBlock)
      for (let at = 0; at < rows.length; at += CHUNK_ROWS) {
        const count = Math.min(CHUNK_ROWS, rows.length - at);
        put(rows, at, count);
        n += count;
        if (count === CHUNK_ROWS) await setImmediate();
      }
    else {
      let buffer: Row[] = [];
      for (const row of rows) {
        buffer.push(row);
        n++;
        if (buffer.length === CHUNK_ROWS) {
          put(RowBlock.wrap(buffer), 0, CHUNK_ROWS);
          buffer = [];
          await setImmediate();
        }
      }
      if (buffer.length) put(RowBlock.wrap(buffer), 0, buffer.length);
    }
  } finally {
    ap.closeSync();
  }
  return n;
}

/** The key columns' cells at `k` (of their arrays) as one string (an instant as epoch ms, from a Date or a number). */
const keyOf = (cols: readonly Column[], k: number): string => {
  if (cols.length === 1) return String(cols[0]!.key(k));
  let s = '';
  for (const c of cols) s += `${String(c.key(k))}\u0000`;
  return s;
};

/**
 * The positions of the rows to keep for one row per key: the last given for each (the order of
 * the rest kept); null when no key repeats.
 */
export function lastPerKey(rows: RowBlock, key: readonly string[]): Uint32Array | null {
  const cols = key.map((c) => rows.column(c));
  const at = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) at.set(keyOf(cols, rows.row(i)), i);
  if (at.size === rows.length) return null;
  const keep = new Uint8Array(rows.length);
  for (const i of at.values()) keep[i] = 1;
  const out = new Uint32Array(at.size);
  for (let i = 0, j = 0; i < rows.length; i++) if (keep[i] === 1) out[j++] = i;
  return out;
}

/**
 * The order a table's rows are kept in, where a reader streams them as stored instead of sorting
 * (issue 29: the trips export, queries/reports/lookups/trips_stored_order.sql). Rows written
 * through upsertRows go in this order; windows committed oldest first then keep the whole table
 * in it, and a reader checks before it relies on it (a window pulled again goes in after later ones).
 */
export const STORED_ORDER: Readonly<Record<string, readonly string[]>> = {
  trips: ['start_time', 'trip_id'],
};

/** Two key values (Column.key's) in stored order: nulls last. */
const cmpKey = (x: Cell, y: Cell): number => {
  if (x === y) return 0;
  if (x === null || x === undefined) return 1;
  if (y === null || y === undefined) return -1;
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The positions of the rows in `table`'s stored order (STORED_ORDER): null when they are in it
 * already (one pass; an answer sorted by start costs no sort) or the table has none, else the
 * sorted positions (stable: rows of equal keys keep their order). The order's values are read
 * once per row (a comparison of rows read them again each time: 1.2 s of CPU per 1 M trips not
 * in start order, issue 29's ingest bench).
 */
export function sortedAsStored(table: string, rows: RowBlock): Uint32Array | null {
  const order = STORED_ORDER[table];
  if (!order) return null;
  const cols = order.map((c) => rows.column(c));
  const cmpAt = (a: number, b: number) => {
    for (const c of cols) {
      const d = cmpKey(c.key(a), c.key(b));
      if (d !== 0) return d;
    }
    return 0;
  };
  let sorted = true;
  for (let i = 1; sorted && i < rows.length; i++) sorted = cmpAt(rows.row(i - 1), rows.row(i)) <= 0;
  if (sorted) return null;
  const keys = cols.map((c) => Array.from({ length: rows.length }, (_, i) => c.key(rows.row(i))));
  const cmp = (i: number, j: number) => {
    for (const k of keys) {
      const d = cmpKey(k[i], k[j]);
      if (d !== 0) return d;
    }
    return i - j;
  };
  return Uint32Array.from(Array.from({ length: rows.length }, (_, k) => k).sort(cmp));
}

/**
 * Inserts rows into `table`, replacing existing rows with the same primary key; duplicates
 * within `rows` collapse to the last one given for each key. Call inside a transaction.
 *
 * The rows are made unique by key here. Rows for which `fresh` (given a row's position in
 * `rows`) says no stored row can share their key (the caller deleted the range that holds every
 * such row earlier in this transaction) are appended straight to the table through data chunks.
 * The rest go through a staging table (recreated empty by one statement, so it never carries
 * the rows of earlier calls) and one `INSERT OR REPLACE … SELECT`, whose primary-key index finds
 * the rows it replaces, so the cost follows the rows given, not the table's size. Both go in the
 * table's STORED_ORDER.
 */
export async function upsertRows(
  con: DuckDBConnection,
  table: string,
  key: readonly string[],
  rows: readonly Row[] | RowBlock,
  fresh?: (position: number) => boolean,
): Promise<number> {
  if (rows.length === 0) return 0;
  if (!IDENT.test(table)) throw new FleetsyncError('E_DB', `bad table name ${table}`);
  const info = await columnsOf(con, table, 'main');
  for (const c of key) column(info, table, c);
  const given = rows instanceof RowBlock ? rows : RowBlock.wrap(rows);
  // The positions (in `given`) of the rows kept, in stored order.
  const kept = lastPerKey(given, key);
  const sorted = sortedAsStored(table, kept ? given.take(kept) : given);
  const positions =
    kept && sorted
      ? sorted.map((p) => kept[p]!)
      : (kept ?? sorted ?? Uint32Array.from({ length: given.length }, (_, i) => i));
  const append = fresh ? positions.filter((p) => fresh(p)) : new Uint32Array(0);
  const merge = append.length === 0 ? positions : positions.filter((p) => !fresh!(p));
  if (append.length) await appendRows(con, table, given.take(append));
  if (merge.length) {
    const cols = info.map((c) => c.name).join(', ');
    const stage = `stage_${table}`;
    await con.run(`CREATE OR REPLACE TEMP TABLE ${stage} AS SELECT * FROM main.${table} LIMIT 0`);
    await appendRows(con, stage, given.take(merge), { schema: 'main', catalog: 'temp' });
    if (STORED_ORDER[table]) {
      // INSERT OR REPLACE writes its rows in parallel, out of order; a plain INSERT keeps the
      // staging table's order, so the replaced rows are deleted first (by the key's index)
      const on = key.map((c) => `t.${c} = s.${c}`).join(' AND ');
      await con.run(`DELETE FROM main.${table} AS t USING temp.main.${stage} AS s WHERE ${on}`);
      await con.run(`INSERT INTO main.${table} (${cols}) SELECT ${cols} FROM temp.main.${stage}`);
    } else
      await con.run(`INSERT OR REPLACE INTO main.${table} (${cols}) SELECT ${cols} FROM temp.main.${stage}`);
  }
  return rows.length;
}

/**
 * Rows of `table` (of one account) to delete before a window's rows go in: those whose `eq`
 * columns equal the given values and whose time lies in [startMs, endMs) (`at`: one timestamp
 * column) or whose span lies inside [startMs, endMs] (`within`: a start and an end column).
 */
export interface RangeDelete {
  table: string;
  eq: Record<string, string | number>;
  at?: string;
  within?: readonly [string, string];
  startMs: number;
  endMs: number;
}

/** A column name checked against the table's own columns (never taken from input). */
function column(cols: readonly ColumnInfo[], table: string, name: string): string {
  if (!IDENT.test(name) || !cols.some((c) => c.name === name))
    throw new FleetsyncError('E_DB', `${table} has no column ${name}`);
  return name;
}

const isoTs = (ms: number) => new Date(ms).toISOString();

/**
 * Deletes every range in `deletes` for `account`: one DELETE per table and shape, however many
 * windows (a window's own statement costs ~1–3 ms; a group of 50 in one statement about the same
 * as one). Values are bound; names are checked against the table's columns. Call inside a
 * transaction.
 */
export async function deleteRanges(
  con: DuckDBConnection,
  account: string,
  deletes: readonly RangeDelete[],
): Promise<void> {
  const shapes = new Map<string, RangeDelete[]>();
  for (const d of deletes) {
    if (!d.at === !d.within)
      throw new FleetsyncError('E_DB', `delete on ${d.table}: give one of at / within`);
    const k = [d.table, Object.keys(d.eq).join(','), d.at ?? d.within!.join(',')].join('|');
    const list = shapes.get(k) ?? [];
    list.push(d);
    shapes.set(k, list);
  }
  for (const group of shapes.values()) {
    const first = group[0]!;
    if (!IDENT.test(first.table)) throw new FleetsyncError('E_DB', `bad table name ${first.table}`);
    const cols = await columnsOf(con, first.table, 'main');
    const table = first.table;
    column(cols, table, 'account');
    const eqCols = Object.keys(first.eq).map((c) => column(cols, table, c));
    const [lo, hi] = first.at
      ? [column(cols, table, first.at), column(cols, table, first.at)]
      : [column(cols, table, first.within![0]), column(cols, table, first.within![1])];
    const hiOp = first.at ? '<' : '<=';
    const params: (string | number)[] = [account];
    const p = (v: string | number) => {
      params.push(v);
      return `$${params.length}`;
    };
    const cast = (v: string | number) => (typeof v === 'number' ? 'BIGINT' : 'VARCHAR');
    if (group.length === 1) {
      const where = [
        't.account = $1',
        ...eqCols.map((c) => `t.${c} = ${p(first.eq[c]!)}`),
        `t.${lo} >= ${p(isoTs(first.startMs))}::TIMESTAMPTZ`,
        `t.${hi} ${hiOp} ${p(isoTs(first.endMs))}::TIMESTAMPTZ`,
      ].join(' AND ');
      await con.run(`DELETE FROM main.${table} AS t WHERE ${where}`, params);
      continue;
    }
    // The ranges as one list per column, unnested side by side into rows (a VALUES list of a
    // group's ranges — 800 a fleet-wide fills day, 51,200 in a commit of 64 — made DuckDB build
    // an expression per value: ~7 s of CPU and ~1 GB of memory outside its pool per statement).
    // Each list is bound as one JSON text, not a DuckDB list value: a list value is a native value
    // and a JS wrapper per element, freed only when V8 collects them, and at 800 vehicles those
    // filled ~100 MB of the JS thread's malloc heap that stayed in the process's RSS.
    const keyNames = [...eqCols.map((_, i) => `k${i}`), 'ks', 'ke'];
    const jsonList = (vs: readonly (string | number)[], type: 'BIGINT' | 'VARCHAR') =>
      `unnest(from_json(${p(JSON.stringify(vs))}, '["${type}"]'))`;
    const lists = [
      ...eqCols.map((c) => {
        const vs = group.map((d) => d.eq[c]!);
        return vs.every((v) => Number.isSafeInteger(v))
          ? jsonList(vs, 'BIGINT')
          : jsonList(vs.map(String), 'VARCHAR');
      }),
      `${jsonList(
        group.map((d) => isoTs(d.startMs)),
        'VARCHAR',
      )}::TIMESTAMPTZ`,
      `${jsonList(
        group.map((d) => isoTs(d.endMs)),
        'VARCHAR',
      )}::TIMESTAMPTZ`,
    ];
    const keys = lists.map((l, i) => `${l} AS ${keyNames[i]}`).join(', ');
    // The overall span as plain filters too (times; a value every window shares, such as the
    // ledger stream; the range of numeric keys such as the vehicle), pushed into the scan, so
    // DuckDB skips row groups by their min/max and joins only the rows left.
    // (reduce, not Math.min(...): a commit of fleet-wide days can hold more ranges than a call takes arguments)
    const span = [
      `t.${lo} >= ${p(isoTs(group.reduce((m, d) => Math.min(m, d.startMs), Infinity)))}::TIMESTAMPTZ`,
      `t.${hi} ${hiOp} ${p(isoTs(group.reduce((m, d) => Math.max(m, d.endMs), -Infinity)))}::TIMESTAMPTZ`,
      ...eqCols.flatMap((c) => {
        const vs = group.map((d) => d.eq[c]!);
        if (vs.every((v) => v === vs[0])) return [`t.${c} = ${p(vs[0]!)}::${cast(vs[0]!)}`];
        if (!vs.every((v) => typeof v === 'number')) return [];
        const nums = vs as number[];
        const least = nums.reduce((m, v) => Math.min(m, v), Infinity);
        const most = nums.reduce((m, v) => Math.max(m, v), -Infinity);
        return [`t.${c} BETWEEN ${p(least)}::BIGINT AND ${p(most)}::BIGINT`];
      }),
    ].join(' AND ');
    const where = [
      't.account = $1',
      ...eqCols.map((c, i) => `t.${c} = k.k${i}`),
      `t.${lo} >= k.ks`,
      `t.${hi} ${hiOp} k.ke`,
      span,
    ].join(' AND ');
    await con.run(`DELETE FROM main.${table} AS t USING (SELECT ${keys}) AS k WHERE ${where}`, params);
  }
}
