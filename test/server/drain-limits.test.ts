/**
 * A stopping server never hangs on its own database work (src/server/drain.ts): a statement still
 * running when the drain's first limit passes is interrupted (its route then fails and closes its
 * connection), and a connection nobody closes is reported once the second limit passes instead of
 * holding the stop for ever. Without the limits `systemctl stop` waited for a year's export to
 * finish, and a route that forgot `closeSync` would have hung the close (session 14's note).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDatabase } from '../../src/server/drain.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

let db: Database;
beforeAll(async () => {
  db = await openDatabase(':memory:');
});
afterAll(() => db?.close());

/** A statement that runs for minutes unless interrupted. */
const LONG = 'SELECT sum(hash(i)) AS s FROM range(100000000000) t(i)';

describe("a stopping server's drain", () => {
  it('waits for work that ends by itself, and interrupts nothing', async () => {
    const served = serverDatabase(db);
    const con = await served.connect();
    const work = con.run('SELECT 42').finally(() => con.closeSync());
    const result = await served.drain({ interruptAfterMs: 60_000, giveUpAfterMs: 60_000 });
    await work;
    expect(result).toEqual({ interrupted: 0, leftOpen: 0 });
    expect(served.open).toBe(0);
  });

  it('interrupts a statement still running after the first limit; its route closes and the drain ends', async () => {
    const served = serverDatabase(db);
    const con = await served.connect();
    // a route's work: the statement, then its connection closed whatever happened
    const work = con.run(LONG).then(
      () => 'finished',
      (e: unknown) => String(e),
    );
    void work.finally(() => con.closeSync());
    const result = await served.drain({ interruptAfterMs: 100, giveUpAfterMs: 60_000 });
    expect(await work).toMatch(/interrupt/i);
    expect(result).toEqual({ interrupted: 1, leftOpen: 0 });
    expect(served.open).toBe(0);
  });

  it('interrupts again a statement started after the first interrupt (a route that caught it and went on)', async () => {
    const served = serverDatabase(db);
    const con = await served.connect();
    const errors: string[] = [];
    const work = (async () => {
      for (let i = 0; i < 2; i++) await con.run(LONG).catch((e: unknown) => errors.push(String(e)));
      con.closeSync();
    })();
    const result = await served.drain({ interruptAfterMs: 100, giveUpAfterMs: 60_000 });
    await work;
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(/interrupt/i);
    expect(result).toEqual({ interrupted: 1, leftOpen: 0 });
  });

  it('reports a connection never closed once the second limit passes, instead of waiting for ever', async () => {
    const served = serverDatabase(db);
    const leaked = await served.connect();
    const closed = await served.connect();
    closed.closeSync();
    const result = await served.drain({ interruptAfterMs: 20, giveUpAfterMs: 20 });
    expect(result).toEqual({ interrupted: 1, leftOpen: 1 });
    expect(served.open).toBe(1);
    leaked.closeSync();
    expect(served.open).toBe(0);
  });
});
