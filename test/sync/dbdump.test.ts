/**
 * The dump the equality tests compare (test/helpers/dbdump.ts) must not hide a duplicated history
 * row: a booking status recorded twice in a row is a defect the dump has to show (it used to
 * select DISTINCT statuses, which folded the repeat away).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { diffTable, dumpDatabase } from '../helpers/dbdump.ts';

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-dump-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withHistory(name: string, rows: [string, string][]): Promise<string> {
  const path = join(dir, `${name}.duckdb`);
  const db = await openDatabase(path);
  const con = await db.connect();
  try {
    for (const [status, seen] of rows)
      await con.run("INSERT INTO carpool_booking_history VALUES ('acme', 7, $1, true, $2::TIMESTAMPTZ, $3)", [
        status,
        seen,
        `run-${seen}`,
      ]);
  } finally {
    con.closeSync();
    db.close();
  }
  return path;
}

describe('the database dump', () => {
  it('shows a duplicated booking-history row, and ignores only when it was seen', async () => {
    const once = await dumpDatabase(
      await withHistory('once', [
        ['REQUESTED', '2026-04-01T00:00:00Z'],
        ['ACTIVE', '2026-04-02T00:00:00Z'],
      ]),
    );
    const twice = await dumpDatabase(
      await withHistory('twice', [
        ['REQUESTED', '2026-04-01T00:00:00Z'],
        ['ACTIVE', '2026-04-02T00:00:00Z'],
        ['ACTIVE', '2026-04-03T00:00:00Z'],
      ]),
    );
    const later = await dumpDatabase(
      await withHistory('later', [
        ['REQUESTED', '2026-04-05T00:00:00Z'],
        ['ACTIVE', '2026-04-06T00:00:00Z'],
      ]),
    );
    expect(diffTable(twice.carpool_booking_history, once.carpool_booking_history).onlyA).toHaveLength(1);
    expect(twice.carpool_booking_history).not.toBe(once.carpool_booking_history);
    // The same statuses in the same order, seen at other times: equal.
    expect(later.carpool_booking_history).toBe(once.carpool_booking_history);
  });
});
