/**
 * The overview's first data (issue 29): the server computes the dashboard's first page of calls
 * (the overview at its default period, and the vehicle list of the filter bar) into its answer
 * memo when the data may have changed — at start, after each sync run, at the account's local
 * midnight (the default period moves) — so the first visit after the nightly sync reads kept
 * answers instead of computing five reports at once on the user's clock.
 *
 * One call at a time, and none while a dashboard call is in flight (the pass waits until the
 * server has no report call running): it yields to users. A user's call that asks for the answer
 * being computed shares it (the memo's one-computation-per-key). A trigger during a pass starts
 * the pass again from its first call when the current call is done.
 */
import type { LogFields } from '../log.ts';

export interface WarmUpCall {
  report: string;
  /** The query as the dashboard sends it (account left out). */
  query: Record<string, string>;
  /**
   * The page reads every page of the answer (getAllRows: the filter bar's vehicles, a chart's
   * rows), not only the first: the pass reads them all too. Else the first page only (a section
   * drawn from its first page: at 5,000 vehicles the costs answer has 15 pages of 1,000, and
   * computing the 14 the page never asks was most of the pass).
   */
  allPages?: boolean;
}

/** One call of a pass: runs it and says how many rows the whole answer has (paged reports). */
export type WarmUpRun = (call: WarmUpCall) => Promise<{ total: number; limit: number | undefined }>;

export interface WarmUp {
  /**
   * The routes' side: the calls of a pass (from the account's today), how to run one, the
   * dashboard calls in flight and a promise of the moment none is.
   */
  attach(a: {
    calls: () => Promise<WarmUpCall[]>;
    run: WarmUpRun;
    inFlight: () => number;
    idle: () => Promise<void>;
  }): void;
  /** A step run first in each pass (the status the page asks before its reports). */
  also(step: () => Promise<unknown>): void;
  /** Starts a pass (or marks the running one to start again). */
  trigger(reason: string): void;
  /** Resolves when no pass runs or is due. */
  settled(): Promise<void>;
  /** Passes done, calls run and the last pass's failure (if any), for the log and tests. */
  readonly stats: { passes: number; calls: number; lastError: unknown };
  /** Stops: the call running now finishes, no other starts. */
  stop(): Promise<void>;
}

export function createWarmUp(
  log: (level: 'info' | 'warn', msg: string, fields: LogFields) => void = () => {},
): WarmUp {
  let route: Parameters<WarmUp['attach']>[0] | null = null;
  const steps: (() => Promise<unknown>)[] = [];
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let onStop = () => {};
  const stopping = new Promise<void>((resolve) => (onStop = resolve));
  const stats = { passes: 0, calls: 0, lastError: undefined as unknown };

  async function pass(reason: string): Promise<void> {
    const r = route;
    if (!r) return;
    const started = performance.now();
    // waits while a dashboard call is in flight; false when the pass is to end (stopped, or asked again)
    const mayGoOn = async () => {
      if (stopped || again) return false;
      while (r.inFlight() > 0 && !stopped) await Promise.race([r.idle(), stopping]);
      return !stopped;
    };
    let n = 0;
    for (const step of steps) {
      if (!(await mayGoOn())) return;
      await step();
      n++;
      stats.calls++;
    }
    const calls = await r.calls();
    for (const call of calls) {
      // a list the page reads whole (the vehicles of the filter bar) is read page after page, with
      // the first page's limit, as the dashboard's getAllRows reads it
      let page = call;
      for (let offset = 0; ;) {
        if (!(await mayGoOn())) return;
        const { total, limit } = await r.run(page);
        n++;
        stats.calls++;
        if (!call.allPages || limit === undefined || offset + limit >= total) break;
        offset += limit;
        page = {
          report: call.report,
          query: { ...call.query, offset: String(offset), limit: String(limit) },
        };
      }
    }
    stats.passes++;
    log('info', 'warm-up done', { reason, calls: n, ms: Math.round(performance.now() - started) });
  }

  function start(reason: string) {
    running = (async () => {
      try {
        do {
          again = false;
          try {
            await pass(reason);
            stats.lastError = undefined;
          } catch (e) {
            stats.lastError = e;
            log('warn', 'warm-up failed', { reason, error: e instanceof Error ? e.message : String(e) });
          }
        } while (again && !stopped);
      } finally {
        running = null;
      }
    })();
  }

  return {
    attach(a) {
      route = a;
    },
    also(step) {
      steps.push(step);
    },
    trigger(reason) {
      if (stopped) return;
      if (running) again = true;
      else start(reason);
    },
    settled: async () => {
      while (running) await running;
    },
    stats,
    async stop() {
      stopped = true;
      onStop();
      while (running) await running;
    },
  };
}
