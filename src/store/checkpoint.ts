/**
 * The checkpoint at the end of a sync (session 13, `edge`). DuckDB writes a commit to the
 * write-ahead log (`<db>.wal`) and copies it into the database file at a checkpoint; the one at
 * close fails silently when the file cannot grow (a full disk, `ulimit -f`): the run said "OK",
 * exit 0, while the data sat in the .wal and the next open, restart or serve could fail. The
 * sync now checkpoints explicitly and says why it could not.
 *
 * Session 14 (`drain`): the failure is kept in the state file beside the database (a full disk
 * can still update it) until a later checkpoint succeeds, so `status`, GET /api/status, /healthz
 * and the dashboard's banner say it too, not only the sync's own output. A checkpoint that fails
 * leaves the DuckDB instance unusable ("database has been invalidated"): only a process about to
 * close it tries one (sync, status). `serve` never does: it sees a later checkpoint succeed (DuckDB's
 * own, past its WAL threshold or at a clean close) by the write-ahead log being empty.
 */
import { existsSync, statSync } from 'node:fs';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { outcomesFor, stateFilePath, type CheckpointFailure } from '../outcome/outcomes.ts';
import type { Database } from './db.ts';
import { execute } from './queries.ts';
import { storageFailure } from './storage-error.ts';

/** Exit code of a sync (or status) whose data are safe in the write-ahead log but not in the database file. */
export const EXIT_NOT_CHECKPOINTED = 5;

/** The runs a kept checkpoint failure names at most. */
const KEPT_RUNS = 20;

/** What the user is told when the checkpoint failed (or could not be tried) for `cause`. */
function failureText(path: string, cause: string, storage: boolean): string {
  const kept =
    `the synced data are kept in the write-ahead log ${path}.wal (do not delete it) and are written ` +
    `into the file at the next checkpoint`;
  return storage
    ? `the database file ${path} could not grow (${cause}): free space on its disk or raise the ` +
        `file-size limit (ulimit -f), then run the sync again; ${kept}`
    : `the checkpoint of the database file ${path} failed (${cause}): run the sync again; ${kept}`;
}

const causeOf = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** The checkpoint's failure in words (null: the file holds everything). */
async function tryCheckpoint(db: Pick<Database, 'connect' | 'path'>): Promise<string | null> {
  const con = await db.connect();
  try {
    await execute(con, 'sync/checkpoint');
    return null;
  } catch (e) {
    return failureText(db.path, causeOf(e), storageFailure(e) !== null);
  } finally {
    con.closeSync();
  }
}

/**
 * Checkpoints and keeps the outcome in the state file (a failure with the runs whose data wait in
 * the write-ahead log; cleared by a checkpoint that succeeds): the failure, or null. Any failure
 * counts, the storage's or not, and so does a checkpoint that could not be tried (a connection
 * refused by an instance a storage error invalidated): only a checkpoint that succeeded says the
 * file holds everything. No state file is created to say that all is well.
 */
export async function recordCheckpoint(
  db: Pick<Database, 'connect' | 'path'>,
  nowMs: number,
  log?: Logger,
): Promise<CheckpointFailure | null> {
  const path = stateFilePath(db.path);
  let failed: string | null;
  try {
    failed = await tryCheckpoint(db);
  } catch (e) {
    log?.warn('checkpoint not tried', { error: describeError(e) });
    failed = failureText(db.path, `it could not be tried: ${causeOf(e)}`, false);
  }
  if (!path) return failed ? { problem: failed, first_ms: nowMs, last_ms: nowMs, runs: [] } : null;
  if (!failed && !existsSync(path)) return null;
  const outcomes = outcomesFor(db.path, log);
  const kept = outcomes.read().checkpoint ?? null;
  if (!failed) {
    if (kept) outcomes.update((d) => void (d.checkpoint = null), true);
    return null;
  }
  let now: CheckpointFailure | null = null;
  outcomes.update((d) => {
    const runs = [...(kept?.runs ?? [])];
    for (const [account, o] of Object.entries(d.accounts))
      if (!runs.some((r) => r.account === account && r.run_id === o.run_id))
        runs.push({ account, run_id: o.run_id });
    // the latest few (the state file's slot is small)
    d.checkpoint = now = {
      problem: failed,
      first_ms: kept?.first_ms ?? nowMs,
      last_ms: nowMs,
      runs: runs.slice(-KEPT_RUNS),
    };
  }, true);
  return now;
}

/**
 * `serve`'s side (at start and after each run): a kept failure is cleared once the write-ahead
 * log is empty or gone (a checkpoint succeeded since). True when it cleared one.
 */
export function noteCheckpointed(dbPath: string, log?: Logger): boolean {
  const path = stateFilePath(dbPath);
  if (!path || !existsSync(path)) return false;
  const outcomes = outcomesFor(dbPath, log);
  if (!outcomes.read().checkpoint) return false;
  const wal = `${dbPath}.wal`;
  if (existsSync(wal) && statSync(wal).size > 0) return false;
  outcomes.update((d) => void (d.checkpoint = null), true);
  log?.info(
    'the database file holds everything again (its write-ahead log is empty): checkpoint failure cleared',
  );
  return true;
}
