/**
 * The export's manifest digest is taken while DuckDB's COPY writes the file (followDigest): it must
 * be the SHA-256 and size of the whole file as it ends up, read back afterwards independently
 * (node:crypto over the file's bytes), for CSV and Parquet files written in many pieces; a writer
 * that fails, or never creates its file, ends the digest with an error instead of leaving it
 * waiting.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followDigest } from '../../src/reports/export.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

let dir: string;
let db: Database;
let con: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-export-digest-'));
  db = await openDatabase(join(dir, 'd.duckdb'));
  con = await db.connect();
  // ~300,000 rows of mixed text and numbers: tens of MB of CSV, written by COPY in many writes
  await con.run(
    `CREATE TABLE t AS SELECT i, 'row ' || i || repeat('x', (i % 50)::INTEGER) AS s, i / 7.0 AS d,
       TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i) AS at FROM range(300000) r(i)`,
  );
});

afterAll(() => {
  con.closeSync();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256Of = (path: string) => {
  const data = readFileSync(path);
  return { sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length };
};

describe('followDigest', () => {
  for (const format of ['csv', 'parquet'] as const)
    it(`the digest taken while COPY writes ${format} is that of the whole file read back`, async () => {
      const out = join(dir, `t.${format}`);
      const following = followDigest(out);
      await con.run(`COPY (SELECT * FROM t ORDER BY i) TO '${out}' (FORMAT ${format})`);
      following.finished();
      const got = await following.digest;
      const want = sha256Of(out);
      expect(want.bytes).toBeGreaterThan(format === 'csv' ? 10_000_000 : 1_000_000);
      expect(got).toEqual(want);
    });

  it('a COPY that fails ends the digest with an error, and one abandoned before the file exists too', async () => {
    const out = join(dir, 'fails.csv');
    const following = followDigest(out);
    // the cast fails on a row past the first chunks, after the file was created and written to
    await expect(
      con.run(
        `COPY (SELECT i, CASE WHEN i < 250000 THEN i::VARCHAR ELSE 'x' END::INTEGER AS n FROM t ORDER BY i) TO '${out}' (FORMAT csv)`,
      ),
    ).rejects.toThrow();
    following.abandon();
    await expect(following.digest).rejects.toThrow();

    const never = followDigest(join(dir, 'never.csv'));
    never.abandon();
    await expect(never.digest).rejects.toThrow();
    const finishedWithout = followDigest(join(dir, 'never2.csv'));
    finishedWithout.finished();
    await expect(finishedWithout.digest).rejects.toThrow(/ENOENT/);
  });
});
