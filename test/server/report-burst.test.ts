import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { createComputeGate, overviewCalls } from '../../src/server/report-routes.ts';
import { isOutOfMemory } from '../../src/store/storage-error.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

/** A promise with its resolve, to hold a computation open. */
function held() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

describe('the line of report computations', () => {
  it('DuckDB’s own out-of-memory error is recognised (a real 1 MB pool, a sort that needs more)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-burst-'));
    const db = await openDatabase(join(dir, 'm.duckdb'), { threads: 1 });
    const con = await db.connect();
    try {
      await con.run("SET memory_limit = '2MB'");
      const err = await con
        .run('SELECT list(i ORDER BY random()) FROM range(3000000) t(i) GROUP BY i % 7')
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isOutOfMemory(err)).toBe(true);
      expect(isOutOfMemory(new Error('Binder Error: x'))).toBe(false);
    } finally {
      con.closeSync();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs at most the limit at once, first come first served', async () => {
    const gate = createComputeGate(2);
    let now = 0;
    let most = 0;
    const order: number[] = [];
    const holds = [0, 1, 2, 3, 4].map(() => held());
    const runs = holds.map((h, i) =>
      gate.compute(async () => {
        most = Math.max(most, ++now);
        order.push(i);
        await h.p;
        now--;
        return i;
      }),
    );
    await Promise.resolve();
    expect([gate.running, gate.waiting]).toEqual([2, 3]);
    for (const h of holds) h.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('a computation out of memory beside others runs again alone, after them; out of memory alone says so in words', async () => {
    const gate = createComputeGate(2);
    const other = held();
    const log: string[] = [];
    const oom = () => new Error('Out of Memory Error: failed to allocate (244.1 MiB/244.1 MiB used)');
    let tries = 0;
    // a call computes through the gate; run again alone, its computation passes
    const run = <T>(fn: () => Promise<T>) => gate.call((alone) => gate.compute(fn, alone));
    const otherRun = run(async () => {
      log.push('other start');
      await other.p;
      log.push('other end');
      return 'o';
    });
    const retried = run(async () => {
      tries++;
      log.push(`try ${tries}, computations running ${gate.running}`);
      if (tries === 1) throw oom();
      return 'r';
    });
    await new Promise((r) => setTimeout(r, 0));
    // the retry waits: the other computation still runs, and a later call waits behind the retry
    const later = run(async () => (log.push('later'), 'l'));
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['other start', 'try 1, computations running 2']);
    other.open();
    expect(await Promise.all([otherRun, retried, later])).toEqual(['o', 'r', 'l']);
    expect(log).toEqual([
      'other start',
      'try 1, computations running 2',
      'other end',
      'try 2, computations running 0',
      'later',
    ]);

    const err = await run(() => Promise.reject(oom())).catch((e: unknown) => e);
    expect(isFleetsyncError(err, 'E_DB_MEMORY')).toBe(true);
    expect((err as Error).message).toMatch(/needs more memory than the database may use .*shorter period/);
    const bad = await run(() => Promise.reject(new Error('Binder Error'))).catch((e: unknown) => e);
    expect((bad as Error).message).toBe('Binder Error'); // other errors are not retried or renamed
  });
});

describe('a burst of the overview’s calls at a freshly started server', () => {
  let fx: FixtureDb;
  let alone: RunningServer;
  let fresh: RunningServer;
  const config = () => loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE, FLEETSYNC_PORT: '0' });
  beforeAll(async () => {
    fx = await openFixture();
    const base = { db: fx.db, config: config(), log: silentLogger, now: () => NOW, port: 0, schedule: null };
    alone = await startServer(base);
    fresh = await startServer({ ...base, warmUp: true });
  });
  afterAll(async () => {
    await fresh?.close();
    await alone?.close();
    fx?.close();
  });

  const call = async (srv: RunningServer, report: string, query: Record<string, string>) => {
    const r = await fetch(
      new URL(`/api/reports/${report}?${new URLSearchParams(query).toString()}`, srv.url),
    );
    const j = (await r.json()) as Record<string, unknown>;
    delete j.generated_at;
    return { status: r.status, body: j };
  };

  it('every answer is 200 and equal to the answer computed alone', async () => {
    const calls = overviewCalls('2026-05-02');
    const expected: Awaited<ReturnType<typeof call>>[] = [];
    for (const c of calls) expected.push(await call(alone, c.report, c.query));
    expect(expected.map((e) => e.status)).toEqual(calls.map(() => 200));
    // three rounds at once, as 3 tabs opening the overview while the warm-up runs
    const burst = await Promise.all(
      [0, 1, 2].flatMap(() => calls.map((c) => call(fresh, c.report, c.query))),
    );
    burst.forEach((b, i) => expect(b, calls[i % calls.length]!.report).toEqual(expected[i % calls.length]));
  });
});
