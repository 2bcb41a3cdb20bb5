/**
 * A failed checkpoint kept in the state file beside the database (src/store/checkpoint.ts): `serve`
 * clears it once the write-ahead log is empty or gone (a checkpoint succeeded since), never while
 * the log still holds data; no state file is created to say all is well.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOutcomes, readOutcomes, stateFilePath } from '../../src/outcome/outcomes.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { noteCheckpointed, recordCheckpoint } from '../../src/store/checkpoint.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-ckpt-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const failure = {
  problem: 'the database file could not grow (File too large)',
  first_ms: 1,
  last_ms: 2,
  runs: [{ account: 'a', run_id: 'r1' }],
};

/** A state file that keeps `failure`, written by another process's outcomes object (as the sync's). */
function keep(db: string) {
  createOutcomes(stateFilePath(db)).update((d) => void (d.checkpoint = failure), true);
}

describe('a kept checkpoint failure', () => {
  it('stays while the write-ahead log holds data, and is cleared once it is empty or gone', () => {
    const db = join(dir, 'kept.duckdb');
    keep(db);
    writeFileSync(`${db}.wal`, 'x'.repeat(100));
    expect(noteCheckpointed(db)).toBe(false);
    expect(readOutcomes(db).checkpoint).toEqual(failure);
    writeFileSync(`${db}.wal`, '');
    expect(noteCheckpointed(db)).toBe(true);
    expect(readOutcomes(db).checkpoint).toBeNull();

    const gone = join(dir, 'gone.duckdb');
    keep(gone);
    expect(noteCheckpointed(gone)).toBe(true);
    expect(readOutcomes(gone).checkpoint).toBeNull();
  });

  it('creates no state file where none was', () => {
    const db = join(dir, 'none.duckdb');
    expect(noteCheckpointed(db)).toBe(false);
    expect(existsSync(`${db}.state`)).toBe(false);
  });
});

describe('recordCheckpoint (sync, status, a worker job)', () => {
  /** A database whose connection refuses (`connect`) or whose CHECKPOINT fails with `error`. */
  const failing = (path: string, where: 'connect' | 'checkpoint', error: Error) => ({
    path,
    connect: async () => {
      if (where === 'connect') throw error;
      return {
        run: async () => {
          throw error;
        },
        closeSync: () => undefined,
      } as unknown as DuckDBConnection;
    },
  });

  it('keeps a failure that is not the storage’s, and one never tried, until a checkpoint succeeds', async () => {
    const db = join(dir, 'other.duckdb');
    // a failure that is not the storage's (the session-13 exit 5 for any failure stays)
    const other = await recordCheckpoint(failing(db, 'checkpoint', new Error('Catalog Error: conflict')), 10);
    expect(other?.problem).toMatch(/checkpoint of the database file .* failed \(Catalog Error: conflict\)/);
    expect(other?.problem).toContain(`kept in the write-ahead log ${db}.wal`);
    expect(readOutcomes(db).checkpoint?.problem).toBe(other?.problem);
    // not tried at all (an invalidated instance refuses a connection): not "all is well"
    const never = await recordCheckpoint(
      failing(db, 'connect', new Error('database has been invalidated')),
      20,
    );
    expect(never?.problem).toMatch(/could not be tried: database has been invalidated/);
    expect(never?.first_ms).toBe(10); // the same failure, still going
    expect(readOutcomes(db).checkpoint?.problem).toBe(never?.problem);
    // a checkpoint that succeeds clears it
    const fine = {
      path: db,
      connect: async () => ({ run: async () => undefined, closeSync: () => undefined }),
    };
    expect(await recordCheckpoint(fine as unknown as Parameters<typeof recordCheckpoint>[0], 30)).toBeNull();
    expect(readOutcomes(db).checkpoint).toBeNull();
  });
});
