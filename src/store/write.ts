/**
 * Bulk writes through the DuckDB Appender (never a row-at-a-time INSERT loop).
 *
 * `appendRows` appends plain objects to a table in its column order, converting by the column's
 * DuckDB type: timestamps are epoch milliseconds (or Date), BIGINT accepts number or bigint,
 * JSON/VARCHAR accept strings. `upsertRows` stages rows in a per-connection temp table and
 * merges them with INSERT OR REPLACE, keeping one row per key, so records the API returns
 * twice (a trip seen by two windows, a fill listed twice) are stored once.
 */
import {
  DuckDBTypeId,
  dateValue,
  timestampTZValue,
  timestampValue,
  DuckDBDataChunk,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';

export type Cell = string | number | bigint | boolean | Date | null | undefined;
export type Row = Record<string, Cell>;

interface ColumnInfo {
  name: string;
  typeId: DuckDBTypeId;
}

const columnCache = new WeakMap<DuckDBConnection, Map<string, ColumnInfo[]>>();

async function columnsOf(con: DuckDBConnection, table: string, schema: string, catalog?: string) {
  let perCon = columnCache.get(con);
  if (!perCon) columnCache.set(con, (perCon = new Map()));
  const key = `${catalog ?? ''}.${schema}.${table}`;
  let cols = perCon.get(key);
  if (!cols) {
    const appender = await con.createAppender(table, schema, catalog ?? null);
    const reader = await con.runAndReadAll(
      `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = $2 ${
        catalog ? 'AND table_catalog = $3' : ''
      } ORDER BY ordinal_position`,
      catalog ? [table, schema, catalog] : [table, schema],
    );
    const names = reader.getRowObjectsJS().map((r) => String(r.column_name));
    cols = names.map((name, i) => ({ name, typeId: appender.columnType(i).typeId }));
    appender.closeSync();
    perCon.set(key, cols);
  }
  return cols;
}

const toMs = (v: Cell): number => (v instanceof Date ? v.getTime() : Number(v));

/** Converts one JS cell to the DuckDB value its column takes. */
function toValue(col: ColumnInfo, v: Cell, table: string): DuckDBValue {
  if (v === null || v === undefined) return null;
  switch (col.typeId) {
    case DuckDBTypeId.VARCHAR:
      return typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : String(v);
    case DuckDBTypeId.BIGINT:
      return typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v)));
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.DOUBLE:
      return Number(v);
    case DuckDBTypeId.BOOLEAN:
      return Boolean(v);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return timestampTZValue(BigInt(Math.round(toMs(v))) * 1000n);
    case DuckDBTypeId.TIMESTAMP:
      return timestampValue(BigInt(Math.round(toMs(v))) * 1000n);
    case DuckDBTypeId.DATE:
      return dateValue(Math.floor(toMs(v) / 86_400_000));
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
 * column-wise, one data chunk of 2,048 rows at a time (about twice the rate of a call per cell).
 */
export async function appendRows(
  con: DuckDBConnection,
  table: string,
  rows: Iterable<Row>,
  opts: { schema?: string; catalog?: string } = {},
): Promise<number> {
  const schema = opts.schema ?? 'main';
  const cols = await columnsOf(con, table, schema, opts.catalog);
  const ap = await con.createAppender(table, schema, opts.catalog ?? null);
  const types = cols.map((_, i) => ap.columnType(i));
  let n = 0;
  let buffer: Row[] = [];
  const flush = () => {
    if (buffer.length === 0) return;
    const chunk = DuckDBDataChunk.create(types, buffer.length);
    chunk.setColumns(cols.map((col) => buffer.map((row) => toValue(col, row[col.name], table))));
    ap.appendDataChunk(chunk);
    buffer = [];
  };
  try {
    for (const row of rows) {
      buffer.push(row);
      n++;
      if (buffer.length === CHUNK_ROWS) flush();
    }
    flush();
    ap.flushSync();
  } finally {
    ap.closeSync();
  }
  return n;
}

/**
 * Inserts rows into `table`, replacing existing rows with the same primary key; duplicates
 * within `rows` collapse to the last one given for each key. Call inside a transaction.
 */
export async function upsertRows(
  con: DuckDBConnection,
  table: string,
  key: readonly string[],
  rows: readonly Row[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const stage = `stage_${table}`;
  await con.run(
    `CREATE TEMP TABLE IF NOT EXISTS ${stage} AS SELECT *, 0::BIGINT AS __seq FROM main.${table} LIMIT 0`,
  );
  await con.run(`DELETE FROM temp.main.${stage}`);
  await appendRows(
    con,
    stage,
    rows.map((r, i) => ({ ...r, __seq: i })),
    { schema: 'main', catalog: 'temp' },
  );
  const cols = (await columnsOf(con, table, 'main')).map((c) => c.name);
  const keyList = key.join(', ');
  // Collapsing duplicates needs a window sort; skip it when the keys are already unique.
  const seen = new Set<string>();
  const unique = rows.every((r) => {
    const k = key.map((c) => String(r[c] instanceof Date ? (r[c] as Date).getTime() : r[c])).join('\u0000');
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  await con.run(
    `INSERT OR REPLACE INTO main.${table} (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM temp.main.${stage}` +
      (unique ? '' : ` QUALIFY row_number() OVER (PARTITION BY ${keyList} ORDER BY __seq DESC) = 1`),
  );
  await con.run(`DELETE FROM temp.main.${stage}`);
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

const IDENT = /^[a-z_][a-z0-9_]*$/;

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
    const keyNames = [...eqCols.map((_, i) => `k${i}`), 'ks', 'ke'];
    const values = group
      .map(
        (d) =>
          `(${[
            ...eqCols.map((c) => `${p(d.eq[c]!)}::${cast(d.eq[c]!)}`),
            `${p(isoTs(d.startMs))}::TIMESTAMPTZ`,
            `${p(isoTs(d.endMs))}::TIMESTAMPTZ`,
          ].join(', ')})`,
      )
      .join(', ');
    // The overall span as a plain filter too, so DuckDB can skip row groups by their min/max.
    const span = [
      `t.${lo} >= ${p(isoTs(Math.min(...group.map((d) => d.startMs))))}::TIMESTAMPTZ`,
      `t.${hi} ${hiOp} ${p(isoTs(Math.max(...group.map((d) => d.endMs))))}::TIMESTAMPTZ`,
    ].join(' AND ');
    const where = [
      't.account = $1',
      ...eqCols.map((c, i) => `t.${c} = k.k${i}`),
      `t.${lo} >= k.ks`,
      `t.${hi} ${hiOp} k.ke`,
      span,
    ].join(' AND ');
    await con.run(
      `DELETE FROM main.${table} AS t USING (VALUES ${values}) AS k(${keyNames.join(', ')}) WHERE ${where}`,
      params,
    );
  }
}
