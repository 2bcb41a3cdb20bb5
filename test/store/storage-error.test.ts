/**
 * Storage failures are recognised by their code: a real ENOSPC from /dev/full, wrapped or not,
 * DuckDB's I/O error types and the errno its commit failures end with; never by wording alone.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FleetsyncError } from '../../src/errors.ts';
import { storageFailure } from '../../src/store/storage-error.ts';
import { stopReason, stopsTheRun } from '../../src/sync/executor.ts';

const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
};

describe('storageFailure', () => {
  it.runIf(existsSync('/dev/full'))('a real full device: ENOSPC, also wrapped in E_DB or in a list', () => {
    const e = thrown(() => writeFileSync('/dev/full', 'x'));
    expect(storageFailure(e)).toBe('ENOSPC');
    const wrapped = new FleetsyncError('E_DB', 'commit failed', { cause: e });
    expect(storageFailure(wrapped)).toBe('ENOSPC');
    expect(
      storageFailure(new FleetsyncError('E_DB', 'rollback failed', { cause: [new Error('x'), e] })),
    ).toBe('ENOSPC');
    expect(stopsTheRun(wrapped)).toBe(true);
    expect(stopReason(wrapped, 'acme')).toMatch(/^stopped: the storage under the database failed \(ENOSPC\)/);
  });

  it('DuckDB: the I/O types, and the errno a failed commit reports', () => {
    expect(storageFailure(new Error('IO Error: Could not read from file "x": Is a directory'))).toBe(
      'DuckDB IO',
    );
    expect(storageFailure(new Error('FATAL Error: Failed: database has been invalidated'))).toBe(
      'DuckDB FATAL',
    );
    const commit = 'TransactionContext Error: Failed to commit: Could not write file "/d/f.duckdb.wal"';
    expect(storageFailure(new Error(`${commit}: File too large`))).toBe('EFBIG');
    expect(storageFailure(new Error(`${commit}: No space left on device`))).toBe('ENOSPC');
    expect(storageFailure(new Error(`${commit}: Disk quota exceeded`))).toBe('EDQUOT');
    expect(storageFailure(new Error(`${commit}: Read-only file system`))).toBe('EROFS');
  });

  it('not a storage failure: data errors, and the same words outside a DuckDB error', () => {
    expect(storageFailure(new Error('Constraint Error: Duplicate key "id: 1"'))).toBeNull();
    expect(
      storageFailure(new FleetsyncError('E_PAYLOAD', 'field note: "No space left on device"')),
    ).toBeNull();
    expect(storageFailure(new Error('the API said: No space left on device'))).toBeNull();
    expect(storageFailure(null)).toBeNull();
    expect(stopsTheRun(new FleetsyncError('E_HTTP', 'HTTP 500'))).toBe(false);
  });
});
