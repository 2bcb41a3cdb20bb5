/**
 * The checkpoint at the end of a sync (session 13, `edge`). DuckDB writes a commit to the
 * write-ahead log (`<db>.wal`) and copies it into the database file at a checkpoint; the one at
 * close fails silently when the file cannot grow (a full disk, `ulimit -f`): the run said "OK",
 * exit 0, while the data sat in the .wal and the next open, restart or serve could fail. The
 * sync now checkpoints explicitly and says why it could not.
 */
import type { Database } from './db.ts';
import { execute } from './queries.ts';

/** Exit code of a sync (or status) whose data are safe in the write-ahead log but not in the database file. */
export const EXIT_NOT_CHECKPOINTED = 5;

/** Null when the database file holds everything; otherwise what the user must be told. */
export async function checkpointProblem(db: Pick<Database, 'connect' | 'path'>): Promise<string | null> {
  const con = await db.connect();
  try {
    await execute(con, 'sync/checkpoint');
    return null;
  } catch (e) {
    const cause = (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
    return (
      `the database file ${db.path} could not grow (${cause}): free space on its disk or raise the ` +
      `file-size limit (ulimit -f), then run the sync again; the synced data are kept in the ` +
      `write-ahead log ${db.path}.wal (do not delete it) and are written into the file at the next checkpoint`
    );
  } finally {
    con.closeSync();
  }
}
