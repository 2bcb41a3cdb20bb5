/**
 * Group commit on the one writer connection. Windows that finish while the writer is busy are
 * written together in one transaction (COMMIT is the writer's main cost: ~4 ms per window alone,
 * well under 1 ms in a group). Each job is one whole window, so a window is still stored whole or
 * not at all; when a group fails, its jobs are retried one transaction each, so one bad window
 * never takes others down with it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from '../store/db.ts';

interface Job<T = unknown> {
  run: () => Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export interface GroupCommitter {
  /** Runs `job` inside a write transaction (maybe shared with other jobs); resolves after COMMIT. */
  submit<T>(job: () => Promise<T>): Promise<T>;
  /** Transactions committed so far (for logs and benchmarks). */
  readonly transactions: number;
}

export function groupCommitter(con: DuckDBConnection, maxGroup = 64): GroupCommitter {
  const pending: Job[] = [];
  let draining = false;
  let transactions = 0;

  async function drain(): Promise<void> {
    while (pending.length) {
      const group = pending.splice(0, maxGroup);
      try {
        const results = await inTransaction(con, async () => {
          const out: unknown[] = [];
          for (const j of group) out.push(await j.run());
          return out;
        });
        transactions++;
        group.forEach((j, i) => j.resolve(results[i]));
      } catch (e) {
        if (group.length === 1) {
          group[0]!.reject(e);
          continue;
        }
        for (const j of group) {
          try {
            j.resolve(await inTransaction(con, j.run));
            transactions++;
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
    submit<T>(run: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ run, resolve: resolve as (v: unknown) => void, reject });
        kick();
      });
    },
    get transactions() {
      return transactions;
    },
  };
}
