/**
 * The server's hold on the database, so that closing the server can wait until nothing of it
 * touches the database (session 14, `drain`). A route's work may outlive its HTTP request: the
 * status recomputed "behind" a kept answer while a sync runs, a report call whose client left, a
 * download still writing. Closing the DuckDB instance under a statement still running kills the
 * process (a native crash, seen as a vitest fork that "exited unexpectedly").
 *
 * Every connection the server's routes open comes from `serverDatabase(db).connect()`, which counts
 * it until it is closed; `drain()` closes the pools' idle connections (each pool registers with
 * `onDrain`), and resolves once every connection the server opened is closed.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from '../store/db.ts';

export interface ServerDatabase extends Database {
  /** `fn` runs when the drain starts (a pool closes its idle connections and every one released later). */
  onDrain(fn: () => void): void;
  /** Resolves when every connection opened through this object is closed. */
  drain(): Promise<void>;
  /** Connections opened (or being opened) and not closed yet. */
  readonly open: number;
}

/** Whether `db` is a server's counted database (a pool registers its close with it). */
export const isServerDatabase = (db: Database): db is ServerDatabase =>
  typeof (db as Partial<ServerDatabase>).onDrain === 'function';

export function serverDatabase(db: Database): ServerDatabase {
  if (isServerDatabase(db)) return db;
  let open = 0;
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
    const disconnect = con.disconnectSync.bind(con); // closeSync calls it
    con.disconnectSync = () => {
      disconnect();
      if (closed) return;
      closed = true;
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
    drain() {
      for (const fn of closers.splice(0)) fn();
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        settle();
      });
    },
    get open() {
      return open;
    },
  };
}
