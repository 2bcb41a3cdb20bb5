/**
 * One sync at a time per process: the scheduler and POST /api/sync share one gate, so a
 * scheduled run and an on-demand run never overlap.
 */
import type { RunSummary, SyncRequest } from '../sync/types.ts';

export type Trigger = SyncRequest['trigger'];
export type RunSyncFn = (trigger: Trigger) => Promise<RunSummary>;

export interface SyncGate {
  readonly running: boolean;
  /** Starts a run, or returns null when one is already running or the gate is closed. */
  tryRun(trigger: Trigger): Promise<RunSummary> | null;
  /** True once close() was called: the server is stopping and starts no run. */
  readonly closed: boolean;
  /** No run starts from now on (the server is stopping); resolves when the one going ended. */
  close(): Promise<void>;
  /** The last finished run's summary (or null). */
  readonly last: RunSummary | null;
}

export function createSyncGate(runSync: RunSyncFn): SyncGate {
  let current: Promise<RunSummary> | null = null;
  let last: RunSummary | null = null;
  let closed = false;
  return {
    get running() {
      return current !== null;
    },
    get last() {
      return last;
    },
    get closed() {
      return closed;
    },
    close: async () => {
      closed = true;
      while (current) await current.catch(() => undefined);
    },
    tryRun(trigger) {
      if (current || closed) return null;
      const p = (async () => {
        try {
          last = await runSync(trigger);
          return last;
        } finally {
          current = null;
        }
      })();
      current = p;
      return p;
    },
  };
}
