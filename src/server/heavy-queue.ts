/**
 * The queue for heavy work of the server (report downloads: a COPY of a whole report to a file).
 * At most `running` at once, at most `waiting` more in line (first come, first served); beyond
 * that `enter()` answers null and the route answers 503 with Retry-After. So N concurrent
 * full-range downloads never ask DuckDB's bounded buffer pool for N sorts at once (several at once
 * ended in "Out of Memory" 500s, and status/kpis calls failed meanwhile), and light calls
 * (status, kpis, dashboard JSON pages the cache keeps) never queue here: they run beside at most
 * `running` COPYs (or streamed pages above STREAM_PAGE_ROWS, which queue here too).
 */

export interface HeavyQueueOptions {
  running: number;
  waiting: number;
}

/**
 * One COPY at a time, 8 more wait. Two at once took twice as long each on 2 cores (DuckDB's
 * threads are shared), so they finished no sooner, and each COPY's sort holds memory outside
 * DuckDB's pool as well (a year of trips, 185 MB of CSV, 256 MB pool, in a bare process: peak
 * RSS 418–490 MB alone, 497–508 MB for two at once).
 */
export const DEFAULT_HEAVY_QUEUE: HeavyQueueOptions = { running: 1, waiting: 8 };

export interface HeavyQueue {
  /** A slot (call the release once, when the heavy part is done), or null when the line is full. */
  enter(): Promise<() => void> | null;
  /** Seconds a refused client should wait: the line ahead of it at the recent pace, at least 1. */
  retryAfterS(): number;
  readonly active: number;
  readonly queued: number;
}

export function createHeavyQueue(opts: HeavyQueueOptions = DEFAULT_HEAVY_QUEUE): HeavyQueue {
  if (!(opts.running >= 1) || !(opts.waiting >= 0))
    throw new Error(`heavy queue: running ≥ 1 and waiting ≥ 0 (got ${opts.running}, ${opts.waiting})`);
  let active = 0;
  const line: Array<() => void> = [];
  // Mean time a slot was held, over the recent slots (for Retry-After).
  let meanMs = 1000;

  const grant = (): (() => void) => {
    active++;
    const t0 = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      meanMs = 0.7 * meanMs + 0.3 * (performance.now() - t0);
      active--;
      const next = line.shift();
      if (next) next();
    };
  };

  return {
    enter() {
      if (active < opts.running) return Promise.resolve(grant());
      if (line.length >= opts.waiting) return null;
      return new Promise((resolve) => line.push(() => resolve(grant())));
    },
    retryAfterS() {
      const ahead = active + line.length;
      return Math.max(1, Math.ceil(((ahead / opts.running) * meanMs) / 1000));
    },
    get active() {
      return active;
    },
    get queued() {
      return line.length;
    },
  };
}
