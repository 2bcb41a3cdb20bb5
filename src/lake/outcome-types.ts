/**
 * An account's last worker job and publish time, as kept in the lake (outcomes.ts) and sent by
 * `serve --lake`'s /api/status. Imports nothing: the dashboard's type-checked program reads it.
 */
export interface LastJob {
  id: string;
  /** ok: synced and published; failed: this attempt failed (retrying tells whether another follows); dead: given up (in the dead-letter queue). */
  outcome: 'ok' | 'failed' | 'dead';
  ended_at: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Whether pg-boss will run the job again (false: the next scheduled tick or `--enqueue` queues it). */
  retrying: boolean;
  error: string | null;
}

export interface JobOutcome {
  account: string;
  /** When the account's tables were last published to the lake (null: never). */
  published_at: string | null;
  last_job: LastJob | null;
}
