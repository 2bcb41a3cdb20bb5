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
import { isOutOfMemory, storageFailure } from '../store/storage-error.ts';
import type { FactsRange } from '../store/facts.ts';
import { msOf } from '../time.ts';

/** Rows for one table: appended, or merged by `key` (a later row for a key replaces an earlier). */
export interface TableRows {
  table: string;
  key?: readonly string[];
  rows: Row[];
}

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
  const byTable = new Map<string, TableRows>();
  const fresh = new Set<Row>();
  for (const w of writes)
    for (const ins of w.inserts) {
      if (ins.rows.length === 0) continue;
      if (ins.key) markFresh(account, ins, w.deletes, fresh);
      const k = `${ins.table}|${ins.key?.join(',') ?? ''}`;
      const t = byTable.get(k);
      // A loop, not push(...rows): a month of a big fleet's trips is more arguments than a call takes.
      if (t) for (const r of ins.rows) t.rows.push(r);
      else byTable.set(k, { table: ins.table, key: ins.key, rows: [...ins.rows] });
    }
  for (const t of byTable.values())
    if (t.key) await upsertRows(con, t.table, t.key, t.rows, (r) => fresh.has(r));
    else await appendRows(con, t.table, t.rows);
  for (const w of writes) await w.custom?.(con);
}

/**
 * Adds to `fresh` the keyed rows that no stored row can share a key with: rows of the account
 * inside one of their own window's deleted ranges whose columns (the `eq` columns and the time
 * column) are all key columns. Any stored row with the same key has the same values there, so it lay in that
 * range and is deleted before the rows go in: these rows are appended without the merge.
 */
function markFresh(account: string, ins: TableRows, deletes: readonly RangeDelete[], fresh: Set<Row>): void {
  const key = new Set(ins.key);
  if (!key.has('account')) return; // the deletes are the account's own rows
  const ranges = deletes.filter(
    (d) =>
      d.table === ins.table &&
      d.at !== undefined &&
      key.has(d.at) &&
      Object.keys(d.eq).every((c) => key.has(c)),
  );
  if (ranges.length === 0) return;
  // Each range's equalities once, not per row (a group's rows × its ranges).
  const eqs = ranges.map((d) => Object.entries(d.eq).map(([c, v]) => [c, v, String(v)] as const));
  const same = (x: unknown, v: string | number, text: string) =>
    x !== null && x !== undefined && (x === v || (typeof x !== typeof v && String(x) === text));
  for (const r of ins.rows) {
    if (r.account !== account) continue;
    for (let i = 0; i < ranges.length; i++) {
      const d = ranges[i]!;
      // Stored at whole milliseconds (write.ts), as the delete's bounds are.
      const t = Math.round(msOf(r[d.at!]));
      if (t >= d.startMs && t < d.endMs && eqs[i]!.every(([c, v, text]) => same(r[c], v, text))) {
        fresh.add(r);
        break;
      }
    }
  }
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

/** V8's size of a row's cell (bytes, pointer compression): a string's header and characters, a
 * number that is not a small integer boxed, a Date; a small integer, a boolean and null none. */
function cellBytes(v: unknown): number {
  if (typeof v === 'string') return 16 + v.length;
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? 0 : 16;
  if (typeof v === 'bigint') return 24;
  return v instanceof Date ? 48 : 0;
}

/** A row object's own size: its header and a slot per column, and its cells. */
function rowBytes(r: Row): number {
  let n = 24;
  for (const k in r) n += 8 + cellBytes(r[k]);
  return n;
}

/**
 * What a window's rows hold in memory until their commit, estimated: the rows of a table are
 * alike, so three of them (first, middle, last) stand for all (a trips row is ~1 KB, a
 * fuel_level_history reading ~0.1 KB, a fuel_level window row ~0.27 KB: a bound in rows let the
 * wide tables hold five times what the narrow ones did).
 */
export function writeBytes(w: WindowWrite): number {
  let n = 0;
  for (const t of w.inserts) {
    const k = t.rows.length;
    if (k === 0) continue;
    const sample = [t.rows[0]!, t.rows[k >> 1]!, t.rows[k - 1]!];
    n += Math.round((k * sample.reduce((m, r) => m + rowBytes(r), 0)) / 3);
  }
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
