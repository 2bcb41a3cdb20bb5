/**
 * A sync's process runs DuckDB on SYNC_DB_THREADS threads and, with the small heap, within
 * SYNC_DB_MEMORY (src/commands/sync.ts): each setting holds for the whole instance, every
 * connection opened before or after it; a bad value is an error naming it, and the setting is
 * left as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SYNC_DB_MEMORY,
  SYNC_DB_THREADS,
  lowerDatabaseMemory,
  openDatabase,
  raiseLoweredMemory,
  setDatabaseMemory,
  setDatabaseThreads,
  type Database,
} from '../../src/store/db.ts';
import { silentLogger } from '../../src/log.ts';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-db-threads-'));
  db = await openDatabase(join(dir, 't.duckdb'), { threads: 2 });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const threadsSeenBy = async (con: Awaited<ReturnType<Database['connect']>>) =>
  Number((await con.runAndReadAll("SELECT current_setting('threads') AS n")).getRowObjectsJS()[0]!.n);

describe('DuckDB threads of a sync', () => {
  it('applies to every connection of the instance', async () => {
    const before = await db.connect();
    expect(await threadsSeenBy(before)).toBe(2);
    await setDatabaseThreads(db, SYNC_DB_THREADS);
    const after = await db.connect();
    expect(SYNC_DB_THREADS).toBe(1);
    expect(await threadsSeenBy(before)).toBe(1);
    expect(await threadsSeenBy(after)).toBe(1);
    before.closeSync();
    after.closeSync();
  });

  it('refuses a count that is not a whole number of at least 1', async () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      await expect(setDatabaseThreads(db, bad)).rejects.toThrow(/bad thread count/);
    const con = await db.connect();
    expect(await threadsSeenBy(con)).toBe(1);
    con.closeSync();
  });
});

const memoryLimitSeenBy = async (con: Awaited<ReturnType<Database['connect']>>) =>
  String((await con.runAndReadAll("SELECT current_setting('memory_limit') AS m")).getRowObjectsJS()[0]!.m);

describe("DuckDB's memory limit of a sync", () => {
  it('applies to every connection of the instance', async () => {
    const before = await db.connect();
    expect(await memoryLimitSeenBy(before)).toBe('244.1 MiB'); // 256MB, the default (DEFAULT_DB_MEMORY)
    await setDatabaseMemory(db, SYNC_DB_MEMORY);
    const after = await db.connect();
    expect(SYNC_DB_MEMORY).toBe('128MB');
    expect(await memoryLimitSeenBy(before)).toBe('122.0 MiB');
    expect(await memoryLimitSeenBy(after)).toBe('122.0 MiB');
    before.closeSync();
    after.closeSync();
  });

  it('refuses a limit that is not a whole number of MB or GB', async () => {
    for (const bad of ['0MB', '128', '1.5GB', "128MB'; DROP TABLE x; --", ''])
      await expect(setDatabaseMemory(db, bad)).rejects.toThrow(/bad memory limit/);
    const con = await db.connect();
    expect(await memoryLimitSeenBy(con)).toBe('122.0 MiB');
    con.closeSync();
  });
});

describe('a pool lowered with room to grow back (lowerDatabaseMemory)', () => {
  const limit = async (d: Database) => {
    const con = await d.connect();
    try {
      return String(
        (await con.runAndReadAll(`SELECT current_setting('memory_limit') AS m`)).getRowObjectsJS()[0]!.m,
      );
    } finally {
      con.closeSync();
    }
  };

  it('grows back to the limit it had, for every writer that ran out at once, and stays there', async () => {
    const d = await openDatabase(':memory:', { memoryLimit: '300MB' });
    try {
      const before = await limit(d);
      await lowerDatabaseMemory(d, '64MB');
      expect(await limit(d)).toBe('61.0 MiB');
      // two writers' commits ran out together: both are told there is room again
      expect(
        await Promise.all([raiseLoweredMemory(d, silentLogger), raiseLoweredMemory(d, silentLogger)]),
      ).toEqual([before, before]);
      // DuckDB reads its own text back a tenth of a MiB lower (286.1 MiB set is 286.0)
      const mib = (t: string) => Number(/^([\d.]+) MiB$/.exec(t)?.[1]);
      expect(mib(await limit(d))).toBeCloseTo(mib(before), 0);
      expect(mib(await limit(d))).toBeGreaterThan(280);
      // the run's end asks again: the same limit, not lowered nor raised further
      const raised = await limit(d);
      expect(await raiseLoweredMemory(d, silentLogger)).toBe(before);
      expect(await limit(d)).toBe(raised);
    } finally {
      d.close();
    }
  });

  it('is never raised where it was not lowered (serve, a worker, the fast heap)', async () => {
    const d = await openDatabase(':memory:');
    try {
      await setDatabaseMemory(d, '64MB');
      expect(await raiseLoweredMemory(d, silentLogger)).toBeNull();
      expect(await limit(d)).toBe('61.0 MiB');
    } finally {
      d.close();
    }
  });
});
