/**
 * A server's close resolves only when nothing it started touches the database (src/server/drain.ts):
 * a vitest fork "exited unexpectedly" when a test closed the DuckDB instance under a statement the
 * server still ran after `close()` — the status recomputed behind its kept answer while a sync ran,
 * a scheduled run started before the cron stopped.
 *
 * The database handed to the server is wrapped here (not by the code under test): it counts the
 * connections the server opens and closes, and can hold every statement at its start, so a piece
 * of work is provably in flight when close() is called. The figures asserted are that wrapper's.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import type { Database } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 2, days: 4 }, instantWaits: true });
}, 60_000);
afterAll(() => h?.close());

function latch() {
  let open = () => {};
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/** `db` with its connections counted and its statements held while `hold` is on. */
function watched(db: Database) {
  let open = 0;
  let inFlight = 0;
  let waiting = 0;
  let gate: { open: () => void; opened: Promise<void> } | null = null;
  const wrap = (con: DuckDBConnection) => {
    let closed = false;
    const close = con.disconnectSync.bind(con); // closeSync calls it
    con.disconnectSync = () => {
      close();
      if (!closed) open--;
      closed = true;
    };
    return new Proxy(con, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (typeof v !== 'function' || String(key).endsWith('Sync')) return v;
        return async (...args: unknown[]) => {
          inFlight++;
          try {
            if (gate) {
              waiting++;
              await gate.opened.finally(() => waiting--);
            }
            return await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            inFlight--;
          }
        };
      },
    });
  };
  return {
    db: {
      path: db.path,
      instance: db.instance,
      close: () => db.close(),
      connect: async () => {
        open++;
        return wrap(await db.connect());
      },
    } satisfies Database,
    hold: () => (gate = latch()),
    release: () => {
      gate?.open();
      gate = null;
    },
    get open() {
      return open;
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return waiting;
    },
  };
}

const config = (extra: Record<string, string> = {}) =>
  loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone, ...extra });

/** Whether `p` settles within `ms` (the old close resolved at once, its work still going). */
const settlesWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("the server's close", () => {
  it('waits for the status recomputed behind a kept answer, and closes every connection it opened', async () => {
    const w = watched(h.db);
    const log = memoryLogger('debug');
    const run = latch();
    const s = await startServer({
      db: w.db,
      config: config(),
      log,
      now: h.now,
      port: 0,
      alertCheckMs: 3_600_000,
      runSync: async (trigger) => {
        await run.opened;
        return runSync(h.deps, { trigger, fromDay: h.firstDay, toDay: h.lastDay });
      },
    });
    const status = async () =>
      (await (await fetch(new URL('/api/status', s.url))).json()) as { sync: { running: boolean } };
    let syncing: Promise<unknown> = Promise.resolve();
    let closing: Promise<void> | null = null;
    try {
      expect((await status()).sync.running).toBe(false); // computed and kept
      syncing = fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'x-fleetsync-request': '1' },
      }).catch(() => undefined);
      await expect.poll(async () => (await status()).sync.running, { timeout: 10_000 }).toBe(true);
      await expect.poll(() => w.inFlight, { timeout: 10_000 }).toBe(0); // the refreshes so far done
      w.hold();
      h.advance(60_000); // a status is kept for a minute of the clock: this one is computed again
      // answered at once from the kept status; its recomputation starts behind it and is held
      expect((await status()).sync.running).toBe(true);
      await expect.poll(() => w.waiting, { timeout: 10_000 }).toBeGreaterThan(0);
      closing = s.close();
      expect(await settlesWithin(closing, 1_000)).toBe(false);
    } finally {
      w.release();
      run.open();
      await (closing ?? s.close());
      await syncing;
    }
    // Nothing of the server's is left on the database: closing the instance now is safe.
    expect(w.inFlight).toBe(0);
    expect(w.open).toBe(0);
    expect(log.lines.filter((l) => /recomputing during a sync failed/.test(l))).toEqual([]);
  }, 60_000);

  it('stops the cron first and waits for the scheduled run going', async () => {
    const w = watched(h.db);
    const started = latch();
    const run = latch();
    let runs = 0;
    let finished = false;
    const s = await startServer({
      db: w.db,
      config: config({ FLEETSYNC_SCHEDULE: '* * * * * *' }),
      log: memoryLogger('debug'),
      now: h.now,
      port: 0,
      alertCheckMs: 3_600_000,
      runSync: async (trigger) => {
        runs++;
        started.open();
        await run.opened;
        try {
          return await runSync(h.deps, { trigger, fromDay: h.firstDay, toDay: h.lastDay });
        } finally {
          finished = true;
        }
      },
    });
    let closing: Promise<void> | null = null;
    try {
      await started.opened;
      closing = s.close();
      expect(await settlesWithin(closing, 1_000)).toBe(false);
      // still listening while the run ends, but a sync asked for now is refused: none starts
      // after the run going (it would write while the database closes)
      const asked = await fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'x-fleetsync-request': '1' },
      });
      expect(asked.status).toBe(503);
      expect(((await asked.json()) as { message: string }).message).toMatch(/the server is stopping/);
    } finally {
      run.open();
      await (closing ?? s.close());
    }
    expect(finished).toBe(true);
    expect(w.open).toBe(0);
    // no run began after the close
    const after = runs;
    await new Promise((r) => setTimeout(r, 1_100));
    expect(runs).toBe(after);
    expect(runs).toBe(1);
  }, 60_000);
});
