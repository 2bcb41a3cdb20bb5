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
  type DuckDBAppender,
  type DuckDBConnection,
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

function appendCell(ap: DuckDBAppender, col: ColumnInfo, v: Cell, table: string): void {
  if (v === null || v === undefined) {
    ap.appendNull();
    return;
  }
  switch (col.typeId) {
    case DuckDBTypeId.VARCHAR:
      ap.appendVarchar(typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : String(v));
      return;
    case DuckDBTypeId.BIGINT:
      ap.appendBigInt(typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
      return;
    case DuckDBTypeId.INTEGER:
      ap.appendInteger(Number(v));
      return;
    case DuckDBTypeId.DOUBLE:
      ap.appendDouble(Number(v));
      return;
    case DuckDBTypeId.BOOLEAN:
      ap.appendBoolean(Boolean(v));
      return;
    case DuckDBTypeId.TIMESTAMP_TZ:
      ap.appendTimestampTZ(timestampTZValue(BigInt(Math.round(toMs(v))) * 1000n));
      return;
    case DuckDBTypeId.TIMESTAMP:
      ap.appendTimestamp(timestampValue(BigInt(Math.round(toMs(v))) * 1000n));
      return;
    case DuckDBTypeId.DATE:
      ap.appendDate(dateValue(Math.floor(toMs(v) / 86_400_000)));
      return;
    default:
      // JSON is a VARCHAR alias with its own type id in some versions.
      if (typeof v === 'string') {
        ap.appendVarchar(v);
        return;
      }
      throw new FleetsyncError(
        'E_DB',
        `cannot append to ${table}.${col.name}: unsupported column type ${col.typeId}`,
      );
  }
}

/** Appends rows to `table` (columns not present in a row are NULL). Returns the count. */
export async function appendRows(
  con: DuckDBConnection,
  table: string,
  rows: Iterable<Row>,
  opts: { schema?: string; catalog?: string } = {},
): Promise<number> {
  const schema = opts.schema ?? 'main';
  const cols = await columnsOf(con, table, schema, opts.catalog);
  const ap = await con.createAppender(table, schema, opts.catalog ?? null);
  let n = 0;
  try {
    for (const row of rows) {
      for (const col of cols) appendCell(ap, col, row[col.name], table);
      ap.endRow();
      n++;
    }
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
  await con.run(
    `INSERT OR REPLACE INTO main.${table} (${cols.join(', ')}) SELECT ${cols.join(', ')} FROM temp.main.${stage} ` +
      `QUALIFY row_number() OVER (PARTITION BY ${keyList} ORDER BY __seq DESC) = 1`,
  );
  await con.run(`DELETE FROM temp.main.${stage}`);
  return rows.length;
}
