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
import { noteCheckpointed } from '../../src/store/checkpoint.ts';

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
