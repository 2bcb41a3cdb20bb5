/**
 * The server's hold on the database, so that closing the server can wait until nothing of it
 * touches the database (session 14, `drain`). A route's work may outlive its HTTP request: the
 * status recomputed "behind" a kept answer while a sync runs, a report call whose client left, a
 * download still writing. Closing the DuckDB instance under a statement still running kills the
 * process (a native crash, seen as a vitest fork that "exited unexpectedly").
 *
 * Every connection the server's routes open comes from `serverDatabase(db).connect()`, which counts
 * it until it is closed; `drain()` closes the pools' idle connections (each pool registers with
 * `onDrain`), and resolves once every connection the server opened is closed — or, so that a stop
 * never hangs, once its limits pass: statements still running `interruptAfterMs` after the drain
 * began are interrupted (their routes then fail and close their connections; every connection
 * still open is interrupted again every 250 ms, and once more at the give-up, so no statement
 * started after the first interrupt outlives the drain), and connections still open
 * `giveUpAfterMs` after that (a route that never closes its own) are counted in the answer and
 * left behind — idle: closing the instance under an idle connection is safe. Interrupting is safe
 * where closing the instance is not: a statement interrupted ends with an error, one still running
 * when its instance closes crashes the process.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { DRAIN_GIVE_UP_MS, DRAIN_INTERRUPT_MS } from '../defaults.ts';
import type { Database } from '../store/db.ts';

/** How long a drain waits before it interrupts, then before it gives up (src/defaults.ts). */
export interface DrainLimits {
  interruptAfterMs: number;
  giveUpAfterMs: number;
}

/** How often a drain past its first limit interrupts the connections still open again. */
const DRAIN_REINTERRUPT_MS = 250;

/**
 * What a drain had to do: connections still open (busy or not) when it began interrupting them,
 * connections left open when it gave up.
 */
export interface DrainResult {
  interrupted: number;
  leftOpen: number;
}

export interface ServerDatabase extends Database {
  /** `fn` runs when the drain starts (a pool closes its idle connections and every one released later). */
  onDrain(fn: () => void): void;
  /** Resolves when every connection opened through this object is closed, or its limits passed. */
  drain(limits?: Partial<DrainLimits>): Promise<DrainResult>;
  /** Connections opened (or being opened) and not closed yet. */
  readonly open: number;
}

/** Whether `db` is a server's counted database (a pool registers its close with it). */
export const isServerDatabase = (db: Database): db is ServerDatabase =>
  typeof (db as Partial<ServerDatabase>).onDrain === 'function';

export function serverDatabase(db: Database): ServerDatabase {
  if (isServerDatabase(db)) return db;
  let open = 0;
  const live = new Set<DuckDBConnection>();
  const closers: (() => void)[] = [];
  let waiters: (() => void)[] = [];
  const settle = () => {
    if (open > 0) return;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };
  const count = (con: DuckDBConnection): DuckDBConnection => {
    let closed = false;
    live.add(con);
    const disconnect = con.disconnectSync.bind(con); // closeSync calls it
    con.disconnectSync = () => {
      disconnect();
      if (closed) return;
      closed = true;
      live.delete(con);
      open--;
      settle();
    };
    return con;
  };
  return {
    path: db.path,
    get instance() {
      return db.instance;
    },
    close: () => db.close(),
    async connect() {
      open++;
      try {
        return count(await db.connect());
      } catch (e) {
        open--;
        settle();
        throw e;
      }
    },
    onDrain(fn) {
      closers.push(fn);
    },
    drain(limits = {}) {
      const { interruptAfterMs = DRAIN_INTERRUPT_MS, giveUpAfterMs = DRAIN_GIVE_UP_MS } = limits;
      for (const fn of closers.splice(0)) fn();
      const result: DrainResult = { interrupted: 0, leftOpen: 0 };
      return new Promise<DrainResult>((resolve) => {
        let giveUp: NodeJS.Timeout | undefined;
        let again: NodeJS.Timeout | undefined;
        // every connection still open, again and again until the give-up (and once more then): a
        // route that catches its interrupted statement may run another, a connection may open late
        const interruptAll = () => {
          for (const con of live) con.interrupt();
        };
        const interrupt = setTimeout(() => {
          result.interrupted = live.size;
          interruptAll();
          again = setInterval(interruptAll, DRAIN_REINTERRUPT_MS);
          giveUp = setTimeout(() => {
            interruptAll();
            result.leftOpen = open;
            done();
          }, giveUpAfterMs);
        }, interruptAfterMs);
        const done = () => {
          clearTimeout(interrupt);
          clearTimeout(giveUp);
          clearInterval(again);
          waiters = waiters.filter((w) => w !== done);
          resolve(result);
        };
        waiters.push(done);
        settle();
      });
    },
    get open() {
      return open;
    },
  };
}
