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
  /**
   * A dashboard call that the running pass is yet to make (`query` as the page sends it, account
   * left out): a promise of the moment the pass has made it (its answer is then in the memo), so a
   * visit during the pass does not compute the same calls beside it, all at once on the server's
   * cores; null when the pass will not make it (the caller computes it). The pass then goes on
   * without waiting for the dashboard's calls in flight, and the calls waiting are let go (to
   * compute for themselves) if the pass stops or starts again.
   */
  join(report: string, query: Record<string, unknown>): Promise<void> | null;
  /** Starts a pass (or marks the running one to start again). */
  trigger(reason: string): void;
  /** Resolves when no pass runs or is due. */
  settled(): Promise<void>;
  /** Passes done, calls run and the last pass's failure (if any), for the log and tests. */
  readonly stats: { passes: number; calls: number; lastError: unknown };
  /** Stops: the call running now finishes, no other starts. */
  stop(): Promise<void>;
}

/** A call of a pass: the dashboard's call, the page of it to make and that page's first row. */
interface Item {
  call: WarmUpCall;
  page: WarmUpCall;
  offset: number;
}

/** A call as the page makes it: the report and its query, in any order of the query's keys. */
const callId = (report: string, query: Record<string, unknown>) =>
  JSON.stringify([report, Object.entries(query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);

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

  // The running pass's calls not yet run (by callId), and the dashboard calls waiting for one of them.
  let ahead: Set<string> | null = null;
  // while a pass asks which calls it makes (the account's today): resolves once `ahead` is known
  let planning: Promise<void> | null = null;
  const waiting = new Map<string, { done: Promise<void>; resolve: () => void }>();
  let wake = () => {};
  // the running pass's second lane (see pass), and how a waiting call starts it
  let helper: Promise<void> | null = null;
  let help = () => {};
  const ran = (id: string) => {
    ahead?.delete(id);
    waiting.get(id)?.resolve();
    waiting.delete(id);
  };

  /** The dashboard's wait for the pass's call `id`, or null when the pass is not to make it. */
  function wait(id: string): Promise<void> | null {
    if (!ahead?.has(id)) return null;
    let w = waiting.get(id);
    if (!w) {
      let resolve = () => {};
      const done = new Promise<void>((r) => (resolve = r));
      waiting.set(id, (w = { done, resolve }));
    }
    wake(); // a pass waiting for the dashboard goes on: the dashboard waits for it
    help();
    return w.done;
  }

  async function pass(reason: string): Promise<void> {
    const r = route;
    if (!r) return;
    const started = performance.now();
    // waits while a dashboard call is in flight, unless one waits for the pass; false when the pass
    // is to end (stopped, or asked again)
    const mayGoOn = async () => {
      if (stopped || again) return false;
      while (r.inFlight() > 0 && !stopped && waiting.size === 0)
        await Promise.race([r.idle(), stopping, new Promise<void>((resolve) => (wake = resolve))]);
      return !stopped;
    };
    let planned = () => {};
    planning = new Promise<void>((resolve) => (planned = resolve));
    try {
      const calls = await r.calls();
      ahead = new Set(calls.map((c) => callId(c.report, c.query)));
      planning = null;
      planned();
      let n = 0;
      for (const step of steps) {
        if (!(await mayGoOn())) return;
        await step();
        n++;
        stats.calls++;
      }
      // the calls in order; a list the page reads whole (the vehicles of the filter bar) is read
      // page after page, with the first page's limit, as the dashboard's getAllRows reads it
      const queue: Item[] = calls.map((call) => ({ call, page: call, offset: 0 }));
      const runItem = async ({ call, page, offset }: Item) => {
        const id = callId(page.report, page.query);
        let got;
        try {
          got = await r.run(page);
        } catch (e) {
          ran(id); // whoever waits for it computes it (and meets the error)
          throw e;
        }
        n++;
        stats.calls++;
        const { total, limit } = got;
        if (call.allPages && limit !== undefined && offset + limit < total) {
          const next = {
            call,
            page: {
              report: call.report,
              query: { ...call.query, offset: String(offset + limit), limit: String(limit) },
            },
            offset: offset + limit,
          };
          ahead?.add(callId(next.page.report, next.page.query)); // before the page that asks it has its answer
          queue.unshift(next);
        }
        ran(id);
      };
      // A second lane while the dashboard waits for the pass (the server has two cores): the first
      // call waited for that no lane has started.
      help = () => {
        if (helper) return;
        helper = (async () => {
          await Promise.resolve(); // `helper` is set before this lane can end and clear it
          try {
            for (;;) {
              if (stopped || again) return;
              const i = queue.findIndex((it) => waiting.has(callId(it.page.report, it.page.query)));
              if (i < 0) return;
              await runItem(queue.splice(i, 1)[0]!);
            }
          } catch (e) {
            stats.lastError = e;
            log('warn', 'warm-up failed', { reason, error: e instanceof Error ? e.message : String(e) });
          } finally {
            helper = null;
          }
        })();
      };
      if (waiting.size > 0) help(); // calls that came during the steps
      for (;;) {
        if (!(await mayGoOn())) return;
        const item = queue.shift();
        if (!item) break; // the second lane took the last
        await runItem(item);
      }
      while (helper) await helper;
      stats.passes++;
      log('info', 'warm-up done', { reason, calls: n, ms: Math.round(performance.now() - started) });
    } finally {
      // an interrupted pass: whoever waits for a call it did not run computes it
      ahead = null;
      planning = null;
      planned();
      for (const id of [...waiting.keys()]) ran(id);
      help = () => {};
      while (helper) await helper;
    }
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
    join(report, query) {
      const id = callId(report, query);
      if (planning) return planning.then(() => wait(id) ?? undefined);
      return wait(id);
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
