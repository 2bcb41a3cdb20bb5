/**
 * Group commit on a stream's writer connection. Windows that finish while the writer is busy are
 * written together in one transaction, and set-based: one DELETE per table and shape for all
 * their ranges, one append or merge per table for all their rows (a statement costs 1–3 ms
 * whatever its size, so per-window statements were the sync's main CPU cost). Each job is one
 * whole window, so a window is still stored whole or not at all; when a group fails, its jobs
 * are retried one transaction each, so one bad window never takes others down with it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';
import { inTransaction } from '../store/db.ts';
import { appendRows, deleteRanges, upsertRows, type RangeDelete, type Row } from '../store/write.ts';
import { RowBlock } from '../store/rows.ts';
import { isOutOfMemory, storageFailure } from '../store/storage-error.ts';
import type { FactsRange } from '../store/facts.ts';
import { msOf } from '../time.ts';

/**
 * Rows for one table: appended, or merged by `key` (a later row for a key replaces an earlier).
 * A stream gives them as objects; `submit` packs them into a block (columns) in place, so the
 * row objects die before the window's commit.
 */
export interface TableRows {
  table: string;
  key?: readonly string[];
  rows: Row[] | RowBlock;
}

/** The rows as a block (packed when given as objects). */
const blockOf = (t: TableRows): RowBlock => (t.rows instanceof RowBlock ? t.rows : RowBlock.pack(t.rows));

/** One window's write: its ranges deleted, then its rows inserted, then `custom` (if any). */
export interface WindowWrite {
  deletes: RangeDelete[];
  inserts: TableRows[];
  /** A write that must read before it writes (bookings history, a failure record). */
  custom?: (con: DuckDBConnection) => Promise<void>;
}

/**
 * A window whose commit ran out of DuckDB's memory limit, said in words (DuckDB's own text
 * suggests settings a user cannot reach): its transaction rolled back, so nothing of it is
 * stored, and the next run pulls it again. Other errors pass as they are.
 */
export function memoryInWords(e: unknown): unknown {
  // (a rollback that failed after it is E_DB "rollback failed", left as it is: not known to be clean)
  if (!isOutOfMemory(e)) return e;
  return new FleetsyncError(
    'E_DB_MEMORY',
    `the window's rows did not fit in the database's memory limit (${(e as Error).message.split('\n')[0]}); ` +
      'nothing of the window was stored and the next run pulls it again',
    { cause: e },
  );
}

/**
 * Applies the writes of several windows as if one after another: every delete first, then every
 * insert, then the custom writes in order. That equals running them in turn because a window's
 * rows lie inside its own ranges and windows of one stream and scope never overlap (a row seen by
 * two windows is keyed, and the merge keeps one).
 */
export async function applyWrites(
  con: DuckDBConnection,
  account: string,
  writes: readonly WindowWrite[],
): Promise<void> {
  await deleteRanges(
    con,
    account,
    writes.flatMap((w) => w.deletes),
  );
  // Per table and key, its windows' blocks and which of their rows are fresh (markFresh).
  const byTable = new Map<
    string,
    { table: string; key?: readonly string[]; blocks: RowBlock[]; fresh: Uint8Array[] }
  >();
  for (const w of writes)
    for (const ins of w.inserts) {
      if (ins.rows.length === 0) continue;
      const block = blockOf(ins);
      const k = `${ins.table}|${ins.key?.join(',') ?? ''}`;
      let t = byTable.get(k);
      if (!t) byTable.set(k, (t = { table: ins.table, key: ins.key, blocks: [], fresh: [] }));
      t.blocks.push(block);
      if (ins.key) t.fresh.push(markFresh(account, ins.table, ins.key, block, w.deletes));
    }
  for (const t of byTable.values()) {
    const rows = RowBlock.concat(t.blocks);
    if (!t.key) {
      await appendRows(con, t.table, rows);
      continue;
    }
    const fresh = new Uint8Array(rows.length);
    let at = 0;
    for (const f of t.fresh) {
      fresh.set(f, at);
      at += f.length;
    }
    await upsertRows(con, t.table, t.key, rows, (p) => fresh[p] === 1);
  }
  for (const w of writes) await w.custom?.(con);
}

/**
 * Which of a window's keyed rows no stored row can share a key with (1 at their positions): rows
 * of the account inside one of their own window's deleted ranges whose columns (the `eq` columns
 * and the time column) are all key columns. Any stored row with the same key has the same values
 * there, so it lay in that range and is deleted before the rows go in: these rows are appended
 * without the merge.
 */
function markFresh(
  account: string,
  table: string,
  keyCols: readonly string[],
  rows: RowBlock,
  deletes: readonly RangeDelete[],
): Uint8Array {
  const fresh = new Uint8Array(rows.length);
  const key = new Set(keyCols);
  if (!key.has('account')) return fresh; // the deletes are the account's own rows
  const ranges = deletes.filter(
    (d) =>
      d.table === table && d.at !== undefined && key.has(d.at) && Object.keys(d.eq).every((c) => key.has(c)),
  );
  if (ranges.length === 0) return fresh;
  // Each range's equalities once, not per row (a group's rows × its ranges).
  const eqs = ranges.map((d) =>
    Object.entries(d.eq).map(([c, v]) => [rows.column(c), v, String(v)] as const),
  );
  const same = (x: unknown, v: string | number, text: string) =>
    x !== null && x !== undefined && (x === v || (typeof x !== typeof v && String(x) === text));
  const accounts = rows.column('account');
  const times = ranges.map((d) => rows.column(d.at!));
  for (let i = 0; i < rows.length; i++) {
    const k = rows.row(i);
    if (accounts.get(k) !== account) continue;
    for (let j = 0; j < ranges.length; j++) {
      const d = ranges[j]!;
      // Stored at whole milliseconds (write.ts), as the delete's bounds are.
      const t = Math.round(msOf(times[j]!.key(k)));
      if (t >= d.startMs && t < d.endMs && eqs[j]!.every(([c, v, text]) => same(c.get(k), v, text))) {
        fresh[i] = 1;
        break;
      }
    }
  }
  return fresh;
}

interface Job {
  write: WindowWrite;
  bytes: number;
  /** Tried again once already after running out of memory (CommitterOptions.onOutOfMemory). */
  roomTried?: boolean;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface GroupCommitter {
  /** Writes one window inside a transaction (maybe shared with other windows); resolves after COMMIT. */
  submit(write: WindowWrite): Promise<void>;
  /** What the windows submitted and not committed yet hold in memory (waiting, or in the
   * transaction being written), estimated in bytes (`writeBytes`). */
  readonly backlogBytes: number;
  /** Resolves once less than `bytes` waits (at once when it does already). */
  room(bytes: number): Promise<void>;
  /** Transactions committed so far (for logs and benchmarks). */
  readonly transactions: number;
}

/**
 * What a waiting range delete holds, in bytes (a heap snapshot at 800 vehicles): its object (64),
 * its `eq` object (40) and `within` array (32), and the ledger entry its window's result keeps
 * beside it (80). A fleet-wide fills day is 1,600 of them and few rows: weighed by its rows alone,
 * 40 such days waited at once (~130 k objects).
 */
const DELETE_BYTES = 216;

/**
 * What a window's write holds in memory until its commit, in bytes: its rows' blocks (arrays and
 * strings: rows.ts; rows given as objects are packed to weigh them) and its range deletes.
 */
export function writeBytes(w: WindowWrite): number {
  let n = w.deletes.length * DELETE_BYTES;
  for (const t of w.inserts) if (t.rows.length) n += blockOf(t).bytes;
  return n;
}

/** Run inside each commit's transaction after (or before) its windows' writes (the daily facts: executor.ts). */
export type AfterWrites = (con: DuckDBConnection, writes: readonly WindowWrite[]) => Promise<void>;

/**
 * The instants a commit's windows replaced, per scope, from their ledger ranges (every pulled
 * window replaces its ledger range; a failure record replaces none): `*` is the fleet (null), a
 * vehicle scope its id.
 */
export function replacedRanges(writes: readonly WindowWrite[]): Map<string, FactsRange[]> {
  const out = new Map<string, FactsRange[]>();
  for (const w of writes)
    for (const d of w.deletes) {
      if (d.table !== 'ledger') continue;
      // by ledger stream: one window may record two (visits: the toll visits and the sites)
      const stream = String(d.eq.stream);
      const ranges = out.get(stream) ?? [];
      out.set(stream, ranges);
      const scope = String(d.eq.scope ?? '*');
      const ids = scope === '*' ? [] : scope.split(',').map(Number);
      const fleet = ids.length === 0 || ids.some((n) => !Number.isSafeInteger(n));
      if (fleet) ranges.push({ vehicleId: null, startMs: d.startMs, endMs: d.endMs });
      else for (const id of ids) ranges.push({ vehicleId: id, startMs: d.startMs, endMs: d.endMs });
    }
  return out;
}

/** How a group committer commits, besides the windows' own writes. */
export interface CommitterOptions {
  /** Windows in one transaction at most. */
  maxGroup?: number;
  /** Run inside each commit's transaction after the windows' writes (the daily facts). */
  afterWrites?: AfterWrites;
  /** Run inside each commit's transaction before the windows' writes. */
  beforeWrites?: AfterWrites;
  /**
   * Asked when a commit ran out of DuckDB's memory limit: true when there is room now (a lowered
   * pool raised back: raiseLoweredMemory), and the same commit is tried again, once.
   */
  onOutOfMemory?: () => Promise<boolean>;
}

/** Commits the windows submitted, several in one transaction. */
export function groupCommitter(
  con: DuckDBConnection,
  account: string,
  { maxGroup = 64, afterWrites, beforeWrites, onOutOfMemory }: CommitterOptions = {},
): GroupCommitter {
  const apply = async (writes: readonly WindowWrite[]) => {
    await beforeWrites?.(con, writes);
    await applyWrites(con, account, writes);
    await afterWrites?.(con, writes);
  };
  const pending: Job[] = [];
  let draining = false;
  let transactions = 0;
  let backlogBytes = 0;
  const waiters: { bytes: number; resolve: () => void }[] = [];
  const settled = (j: Job) => {
    backlogBytes -= j.bytes;
    for (let i = waiters.length - 1; i >= 0; i--)
      if (backlogBytes < waiters[i]!.bytes) waiters.splice(i, 1)[0]!.resolve();
  };
  // The storage under the database failed (disk full, read-only, I/O error): nothing more is
  // written — every waiting and later window fails with that error. Retrying window by window on
  // a broken disk only adds failing commits (DuckDB 1.5 can abort the process reverting one).
  let broken: unknown = null;

  async function drain(): Promise<void> {
    while (pending.length) {
      const group = pending.splice(0, maxGroup);
      try {
        await inTransaction(con, () => apply(group.map((j) => j.write)));
        transactions++;
        for (const j of group) j.resolve();
      } catch (e) {
        if (storageFailure(e) !== null) {
          broken = e;
          for (const j of [...group, ...pending.splice(0)]) j.reject(e);
          return;
        }
        if (isOutOfMemory(e) && !group.some((j) => j.roomTried) && (await onOutOfMemory?.())) {
          // rolled back whole: the same commit again, with room (once: a second time it is
          // retried window by window, below, as any failed group)
          for (const j of group) j.roomTried = true;
          pending.unshift(...group);
          continue;
        }
        if (group.length === 1) {
          group[0]!.reject(e);
          continue;
        }
        for (const j of group) {
          try {
            await inTransaction(con, () => apply([j.write]));
            transactions++;
            j.resolve();
          } catch (e2) {
            j.reject(e2);
          }
        }
      }
    }
  }

  function kick() {
    if (draining) return;
    draining = true;
    // Let windows that finish in the same tick join the group.
    setImmediate(() => {
      drain().finally(() => {
        draining = false;
        if (pending.length) kick();
      });
    });
  }

  return {
    submit(write: WindowWrite): Promise<void> {
      if (broken !== null) return Promise.reject(broken);
      // The rows as columns from here on (in the caller's TableRows too, so its row objects can go).
      for (const t of write.inserts) t.rows = blockOf(t);
      const bytes = writeBytes(write);
      backlogBytes += bytes;
      return new Promise<void>((resolve, reject) => {
        const job: Job = {
          write,
          bytes,
          resolve: () => (settled(job), resolve()),
          reject: (e) => (settled(job), reject(memoryInWords(e))),
        };
        pending.push(job);
        kick();
      });
    },
    get transactions() {
      return transactions;
    },
    get backlogBytes() {
      return backlogBytes;
    },
    room(bytes: number): Promise<void> {
      if (backlogBytes < bytes) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ bytes, resolve }));
    },
  };
}
