/**
 * Trips go into the table in start order (issue 29: the trips export streams them as stored):
 * upsertRows sorts a batch by (start_time, trip_id) and merges without INSERT OR REPLACE, which
 * writes its rows out of order. The reference order is the rows' own start times, worked out here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, openDatabase, type Database } from '../../src/store/db.ts';
import { sortedAsStored, upsertRows, type Row } from '../../src/store/write.ts';
import { RowBlock } from '../../src/store/rows.ts';

let dir: string;
let db: Database;
let con: DuckDBConnection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-order-'));
  db = await openDatabase(join(dir, 'o.duckdb'));
  con = await db.connect();
});
afterAll(() => {
  con?.closeSync();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 2, 1);
const trip = (id: string, startMin: number, km = 1): Row => ({
  account: 'a',
  trip_id: id,
  vehicle_id: 1 + (startMin % 5),
  registration: 'r',
  start_time: T0 + startMin * 60_000,
  end_time: T0 + startMin * 60_000 + 600_000,
  trip_distance_m: km * 1000,
});

/** The stored rows in scan order: trip id and distance. */
const stored = async () =>
  (await con.runAndReadAll(`SELECT trip_id, trip_distance_m FROM trips WHERE account = 'a'`))
    .getRowsJS()
    .map((r) => [String(r[0]), Number(r[1])]);

describe('trips stored in start order', () => {
  it('a batch in any order is stored by start, ties by trip id; a re-sent trip replaced, not doubled', async () => {
    // 3,000 trips a minute apart, given in a scrambled order (7919 is prime to 3,000)
    const batch = Array.from({ length: 3000 }, (_, i) =>
      trip(`t${String((i * 7919) % 3000).padStart(4, '0')}`, (i * 7919) % 3000),
    );
    // two trips at the same minute: ordered by id
    batch.push(trip('t9999b', 3000), trip('t9999a', 3000));
    await inTransaction(con, () => upsertRows(con, 'trips', ['account', 'trip_id'], batch));
    const ids = Array.from({ length: 3000 }, (_, i) => `t${String(i).padStart(4, '0')}`);
    expect((await stored()).map((r) => r[0])).toEqual([...ids, 't9999a', 't9999b']);

    // the next window: later trips, and the last trip of the first sent again with a new distance
    const next = [trip('u2', 3100), trip('u1', 3050), trip('t9999b', 3000, 7)];
    await inTransaction(con, () => upsertRows(con, 'trips', ['account', 'trip_id'], next));
    const after = await stored();
    expect(after.map((r) => r[0])).toEqual([...ids, 't9999a', 't9999b', 'u1', 'u2']);
    expect(after.find((r) => r[0] === 't9999b')![1]).toBe(7000);
  });

  it('rows already in order need no sort; a table without an order is left as given', () => {
    const rows = [trip('a', 1), trip('b', 2), trip('c', 2)];
    expect(sortedAsStored('trips', RowBlock.pack(rows))).toBeNull();
    const back = RowBlock.pack([...rows].reverse());
    expect([...sortedAsStored('trips', back)!].map((p) => back.cell(p, 'trip_id'))).toEqual(['a', 'b', 'c']);
    expect(sortedAsStored('odometer_windows', back)).toBeNull();
  });
});
