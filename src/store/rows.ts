/**
 * Rows held as columns (issue 29). A window's rows wait for their commit in a stream's writer;
 * as plain objects they were most of a big sync's live heap (a heap snapshot at 800 vehicles:
 * 128 k row objects and 451 k strings), and V8's collector marked them again at every full
 * collection. A block holds a table's rows as one array per column: numbers (and instants
 * given as Dates) in a Float64Array, booleans in a Uint8Array, each with a mask for null and
 * undefined; any other column in a plain array with its repeated strings shared. Typed arrays
 * are not scanned by the collector, and the row objects die young.
 *
 * A cell read back is the value the row held (a Date comes back as an equal Date), so the write
 * path converts exactly as it did from the rows. A block can be a view of another (a selection
 * or an order of its rows) without copying its columns.
 */

export type Cell = string | number | bigint | boolean | Date | null | undefined;
export type Row = Record<string, Cell>;

/** What is missing in a masked column: 0 a value, else null or undefined (both NULL when stored). */
const NULL = 1;
const UNDEF = 2;
const absentCell = (m: number): Cell => (m === NULL ? null : undefined);

/** One column of a block: a cell by row index, and its bytes in memory. */
export interface Column {
  /** The cell as the row held it. */
  get(k: number): Cell;
  /** The cell as a key compares it: an instant as epoch ms (a Date or a number), else as held. */
  key(k: number): Cell;
  readonly bytes: number;
}

/** Numbers, or instants given as Dates (kept as epoch ms, read back as Dates). */
class Float64Column implements Column {
  constructor(
    readonly values: Float64Array,
    readonly absent: Uint8Array | null,
    readonly dates: boolean,
  ) {}
  get(k: number): Cell {
    const m = this.absent?.[k];
    if (m) return absentCell(m);
    return this.dates ? new Date(this.values[k]!) : this.values[k]!;
  }
  key(k: number): Cell {
    const m = this.absent?.[k];
    return m ? absentCell(m) : this.values[k]!;
  }
  get bytes() {
    return this.values.byteLength + (this.absent?.byteLength ?? 0);
  }
}

class BoolColumn implements Column {
  constructor(
    readonly values: Uint8Array,
    readonly absent: Uint8Array | null,
  ) {}
  get(k: number): Cell {
    const m = this.absent?.[k];
    return m ? absentCell(m) : this.values[k] === 1;
  }
  key(k: number): Cell {
    return this.get(k);
  }
  get bytes() {
    return this.values.byteLength + (this.absent?.byteLength ?? 0);
  }
}

/** Any cells (strings, mixed types, bigints) as given; strings shared by `pack`. */
class CellColumn implements Column {
  constructor(
    readonly values: Cell[],
    readonly bytes: number,
  ) {}
  get(k: number): Cell {
    return this.values[k];
  }
  key(k: number): Cell {
    const v = this.values[k];
    return v instanceof Date ? v.getTime() : v;
  }
}

/** A column read from row objects as they are (`RowBlock.wrap`). */
class ObjectColumn implements Column {
  constructor(
    private readonly rows: readonly Row[],
    private readonly name: string,
  ) {}
  get(k: number): Cell {
    return this.rows[k]![this.name];
  }
  key(k: number): Cell {
    const v = this.rows[k]![this.name];
    return v instanceof Date ? v.getTime() : v;
  }
  get bytes() {
    return 0; // (the objects' own size is not known here; a wrapped block is not held waiting)
  }
}

/** A column whose every cell is undefined (a name only some rows of a concatenation have). */
const NONE: Column = { get: () => undefined, key: () => undefined, bytes: 0 };

/** V8's size of a cell outside a typed array (bytes): a boxed number, a bigint, a Date; a string is counted where it is shared. */
function cellBytes(v: Cell): number {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? 0 : 16;
  if (typeof v === 'bigint') return 24;
  return v instanceof Date ? 48 : 0;
}

/** The one string object for `s` in this block (the first seen), and its bytes when new. */
class Strings {
  private readonly seen = new Map<string, string>();
  bytes = 0;
  share(s: string): string {
    const had = this.seen.get(s);
    if (had !== undefined) return had;
    this.seen.set(s, s);
    this.bytes += 16 + s.length;
    return s;
  }
}

/** A column of `n` cells read by `at`, in the narrowest form that gives every cell back. */
function packColumn(n: number, at: (k: number) => Cell, strings: Strings): Column {
  // One pass while the cells are numbers (or Dates, or booleans) and nulls; the first other cell
  // sends the whole column to a plain array.
  let kind: 'number' | 'date' | 'boolean' | null = null;
  let values: Float64Array | Uint8Array | null = null;
  let absent: Uint8Array | null = null;
  let k = 0;
  for (; k < n; k++) {
    const v = at(k);
    if (v === null || v === undefined) {
      absent ??= new Uint8Array(n);
      absent[k] = v === null ? NULL : UNDEF;
    } else if (typeof v === 'number' && kind !== 'boolean' && kind !== 'date') {
      kind = 'number';
      (values ??= new Float64Array(n))[k] = v;
    } else if (v instanceof Date && kind !== 'boolean' && kind !== 'number') {
      kind = 'date';
      (values ??= new Float64Array(n))[k] = v.getTime();
    } else if (typeof v === 'boolean' && (kind === null || kind === 'boolean')) {
      kind = 'boolean';
      (values ??= new Uint8Array(n))[k] = v ? 1 : 0;
    } else break;
  }
  // (a column of nulls only falls through to the plain array: no kind was seen)
  if (k === n && kind === 'boolean') return new BoolColumn(values as Uint8Array, absent);
  if (k === n && kind !== null) return new Float64Column(values as Float64Array, absent, kind === 'date');
  const cells: Cell[] = new Array(n);
  let bytes = 8 * n;
  for (k = 0; k < n; k++) {
    const v = at(k);
    if (typeof v === 'string') cells[k] = strings.share(v);
    else {
      cells[k] = v;
      bytes += cellBytes(v);
    }
  }
  return new CellColumn(cells, bytes);
}

/** Every name any of the rows has, in the order first seen. */
function namesOf(rows: readonly Row[]): string[] {
  const names: string[] = [];
  const known = new Set<string>();
  let last: string[] = [];
  for (const r of rows) {
    const keys = Object.keys(r);
    // rows of one mapper have the same names in the same order: checked without the set
    let same = keys.length === last.length;
    for (let i = 0; same && i < keys.length; i++) same = keys[i] === last[i];
    if (same) continue;
    last = keys;
    for (const c of keys)
      if (!known.has(c)) {
        known.add(c);
        names.push(c);
      }
  }
  return names;
}

/** A table's rows as columns; `index` (when set) picks and orders the rows of `columns`. */
export class RowBlock {
  private constructor(
    private readonly columns: ReadonlyMap<string, Column>,
    readonly length: number,
    private readonly index: Uint32Array | null,
    private readonly stringBytes: number,
  ) {}

  /** The rows as a block: every name any row has, its cells packed (strings shared across the block's columns). */
  static pack(rows: readonly Row[], strings = new Strings()): RowBlock {
    const columns = new Map<string, Column>();
    for (const c of namesOf(rows))
      columns.set(
        c,
        packColumn(rows.length, (k) => rows[k]![c], strings),
      );
    return new RowBlock(columns, rows.length, null, strings.bytes);
  }

  /**
   * The rows as a block that reads the objects themselves (nothing copied): for a write of rows
   * that do not wait (bench ingest, rezone, tests), where packing would only add a pass.
   */
  static wrap(rows: readonly Row[]): RowBlock {
    const columns = new Map<string, Column>();
    for (const c of namesOf(rows)) columns.set(c, new ObjectColumn(rows, c));
    return new RowBlock(columns, rows.length, null, 0);
  }

  /** The blocks' rows one after another, as one block. */
  static concat(blocks: readonly RowBlock[]): RowBlock {
    if (blocks.length === 1) return blocks[0]!;
    const names = [...new Set(blocks.flatMap((b) => [...b.columns.keys()]))];
    const n = blocks.reduce((m, b) => m + b.length, 0);
    const strings = new Strings();
    const columns = new Map<string, Column>();
    for (const c of names) columns.set(c, concatColumn(blocks, c, n, strings));
    return new RowBlock(columns, n, null, strings.bytes);
  }

  /** The rows at `positions` (of this block), in that order, sharing this block's columns. */
  take(positions: Uint32Array): RowBlock {
    const index = this.index ? positions.map((p) => this.index![p]!) : positions;
    return new RowBlock(this.columns, positions.length, index, this.stringBytes);
  }

  /** The column `name` (every cell undefined when no row has it); read its cells at `row(i)`. */
  column(name: string): Column {
    return this.columns.get(name) ?? NONE;
  }

  /** True when the block picks or orders another block's rows (`take`). */
  get isView(): boolean {
    return this.index !== null;
  }

  /** Where row `i` of this block lies in its columns. */
  row(i: number): number {
    return this.index ? this.index[i]! : i;
  }

  /** Row `i`'s cell of `name`, as the row held it. */
  cell(i: number, name: string): Cell {
    return this.column(name).get(this.row(i));
  }

  /** What the block holds in memory (its columns' arrays and its strings, once each), in bytes. */
  get bytes(): number {
    let n = this.stringBytes + (this.index?.byteLength ?? 0);
    for (const c of this.columns.values()) n += c.bytes;
    return n;
  }
}

/**
 * Column `name` of the blocks one after another: typed arrays copied whole where every block
 * holds the column in the same form (or not at all), else packed again cell by cell.
 */
function concatColumn(blocks: readonly RowBlock[], name: string, n: number, strings: Strings): Column {
  const parts = blocks.map((b) => b.column(name));
  const whole = blocks.every((b) => !b.isView);
  const first = parts.find((p) => p !== NONE)!;
  const same = (p: Column) =>
    p === NONE ||
    (p instanceof Float64Column && first instanceof Float64Column && p.dates === first.dates) ||
    (p instanceof BoolColumn && first instanceof BoolColumn);
  if (whole && (first instanceof Float64Column || first instanceof BoolColumn) && parts.every(same)) {
    const values = first instanceof Float64Column ? new Float64Array(n) : new Uint8Array(n);
    let absent: Uint8Array | null = null;
    let off = 0;
    parts.forEach((p, i) => {
      const len = blocks[i]!.length;
      if (p === NONE) (absent ??= new Uint8Array(n)).fill(UNDEF, off, off + len);
      else {
        const typed = p as Float64Column | BoolColumn;
        values.set(typed.values, off);
        if (typed.absent) (absent ??= new Uint8Array(n)).set(typed.absent, off);
      }
      off += len;
    });
    return first instanceof Float64Column
      ? new Float64Column(values as Float64Array, absent, first.dates)
      : new BoolColumn(values as Uint8Array, absent);
  }
  if (whole && parts.every((p) => p === NONE || p instanceof CellColumn)) {
    // plain arrays copied as they are (their strings were shared when each block was packed)
    const cells: Cell[] = new Array(n);
    let bytes = 0;
    let off = 0;
    parts.forEach((p, i) => {
      const len = blocks[i]!.length;
      if (p instanceof CellColumn) {
        for (let j = 0; j < len; j++) cells[off + j] = p.values[j];
        bytes += p.bytes;
      } else {
        cells.fill(undefined, off, off + len);
        bytes += 8 * len;
      }
      off += len;
    });
    return new CellColumn(cells, bytes);
  }
  const from = new Uint32Array(n); // the block each row comes from
  const at = new Uint32Array(n); // its row there
  let k = 0;
  blocks.forEach((b, bi) => {
    for (let i = 0; i < b.length; i++, k++) {
      from[k] = bi;
      at[k] = b.row(i);
    }
  });
  return packColumn(n, (r) => parts[from[r]!]!.get(at[r]!), strings);
}
