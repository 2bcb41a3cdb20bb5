/**
 * The kept failure of the last checkpoint (src/store/checkpoint.ts), in a module of types only: the
 * dashboard's type check reads it through src/server/api-types.ts without Node's modules.
 */

/**
 * The last checkpoint failed: the runs' data are in the write-ahead log (`<db>.wal`), not in the
 * database file. Kept in the state file beside the database until a later checkpoint succeeds.
 */
export interface CheckpointFailure {
  /** What happened, where the data are and what to do (as the sync printed it). */
  problem: string;
  /** The first failure since the file last held everything, and the latest. */
  first_ms: number;
  last_ms: number;
  /** The runs whose data are only in the write-ahead log (each account's last run at each failure). */
  runs: { account: string; run_id: string | null }[];
}
