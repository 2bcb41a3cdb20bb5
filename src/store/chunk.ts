/**
 * Fills a DuckDB data chunk column by column from plain JS values, without a native call per
 * cell. `DuckDBDataChunk.setColumns` writes numbers through typed arrays but every VARCHAR cell
 * through its own native call (`vector_assign_string_element`); with six text columns that was
 * 80 % of an append. Here each column is laid out in a JS buffer in DuckDB's vector format and
 * copied in one call: fixed-width values as they are, and strings of at most 12 ASCII bytes
 * inlined in their 16-byte `string_t` (4-byte length, the bytes, zero padding) — DuckDB stores
 * every string that short inline, so only longer or non-ASCII strings take a native call.
 * The layouts are DuckDB's own (the C API's `duckdb_vector_get_data`); `@duckdb/node-api` is
 * pinned, and test/store/chunk.test.ts reads every type back.
 */
import bindings from '@duckdb/node-bindings';
import { DuckDBDataChunk, DuckDBTypeId, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/** A column's values for the rows of one chunk: anything `valueAt` turns into the column's type. */
export type CellOf = (row: number) => unknown;

/** The column types this writer lays out itself (the rest are refused by the caller). */
export const FAST_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.VARCHAR,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.DATE,
]);

const TWO32 = 2 ** 32;
const INLINE = 12;

/** Writes a safe integer as a little-endian int64 without a BigInt. */
function setInt64(view: DataView, at: number, v: number) {
  view.setUint32(at, v >>> 0, true);
  view.setInt32(at + 4, Math.floor(v / TWO32), true);
}

export interface ColumnWriter {
  type: DuckDBType;
  /**
   * The cell converted for its column: a number (BIGINT, INTEGER, DOUBLE; epoch microseconds for
   * timestamps; days since the epoch for DATE), a boolean, a string, a bigint (BIGINT), or null;
   * for a type outside FAST_TYPES, a DuckDB value.
   */
  valueAt: CellOf;
}

/** A data chunk of `count` rows built from `columns` (one writer per column, in table order). */
export function buildChunk(columns: readonly ColumnWriter[], count: number): DuckDBDataChunk {
  const chunk = DuckDBDataChunk.create(
    columns.map((c) => c.type),
    count,
  );
  columns.forEach((col, ci) => {
    const typeId = col.type.typeId;
    if (!FAST_TYPES.has(typeId)) {
      // Any other type (JSON where it has its own id): the library's writer, `valueAt` gives DuckDB values.
      chunk.setColumnValues(
        ci,
        Array.from({ length: count }, (_, i) => col.valueAt(i) as DuckDBValue),
      );
      return;
    }
    const vector = bindings.data_chunk_get_vector(chunk.chunk, ci);
    const width =
      typeId === DuckDBTypeId.VARCHAR
        ? 16
        : typeId === DuckDBTypeId.INTEGER || typeId === DuckDBTypeId.DATE
          ? 4
          : typeId === DuckDBTypeId.BOOLEAN
            ? 1
            : 8;
    const buf = new ArrayBuffer(width * count);
    const view = new DataView(buf);
    const bytes = new Uint8Array(buf);
    let validity: Uint8Array<ArrayBuffer> | null = null;
    const longStrings: [number, string][] = [];
    for (let i = 0; i < count; i++) {
      const v = col.valueAt(i);
      if (v === null || v === undefined) {
        if (!validity) validity = new Uint8Array(new ArrayBuffer(Math.ceil(count / 64) * 8)).fill(0xff);
        validity[i >> 3]! &= ~(1 << (i & 7));
        continue;
      }
      const at = i * width;
      switch (typeId) {
        case DuckDBTypeId.VARCHAR: {
          const s = v as string;
          let ascii = s.length <= INLINE;
          for (let j = 0; ascii && j < s.length; j++) {
            const c = s.charCodeAt(j);
            if (c > 0x7f) ascii = false;
            else bytes[at + 4 + j] = c;
          }
          if (ascii) view.setUint32(at, s.length, true);
          else {
            bytes.fill(0, at, at + 16);
            longStrings.push([i, s]);
          }
          break;
        }
        case DuckDBTypeId.BIGINT:
        case DuckDBTypeId.TIMESTAMP_TZ:
        case DuckDBTypeId.TIMESTAMP:
          if (typeof v === 'bigint') view.setBigInt64(at, v, true);
          else setInt64(view, at, v as number);
          break;
        case DuckDBTypeId.DOUBLE:
          view.setFloat64(at, v as number, true);
          break;
        case DuckDBTypeId.INTEGER:
        case DuckDBTypeId.DATE:
          view.setInt32(at, v as number, true);
          break;
        case DuckDBTypeId.BOOLEAN:
          bytes[at] = v ? 1 : 0;
          break;
      }
    }
    bindings.copy_data_to_vector(vector, 0, buf, 0, buf.byteLength);
    for (const [i, s] of longStrings) bindings.vector_assign_string_element(vector, i, s);
    if (validity) {
      bindings.vector_ensure_validity_writable(vector);
      bindings.copy_data_to_vector_validity(vector, 0, validity.buffer, 0, validity.byteLength);
    }
  });
  return chunk;
}
