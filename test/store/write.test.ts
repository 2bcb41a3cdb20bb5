/**
 * The bulk write path stores exactly what the plain one stores. `appendRows` lays each column of
 * a data chunk out itself (short strings inlined in DuckDB's string format, numbers and times as
 * int64): every type it writes must read back equal to the same rows bound one by one to an
 * INSERT. `upsertRows` makes rows unique by key in JS, appends the rows nothing stored can clash
 * with and merges the rest from a staging table: it must leave what INSERT OR REPLACE of the
 * rows one at a time, in order, leaves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, lastPerKey, upsertRows, type Row } from '../../src/store/write.ts';
import { RowBlock } from '../../src/store/rows.ts';

const dirs: string[] = [];
const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function freshCon(): Promise<DuckDBConnection> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-write-'));
  dirs.push(dir);
  const db = await openDatabase(join(dir, 'w.duckdb'));
  open.push(db);
  return db.connect();
}

const COLS = `s VARCHAR, b BIGINT, i INTEGER, d DOUBLE, f BOOLEAN, ts TIMESTAMPTZ, t TIMESTAMP, day DATE, j JSON`;
const NAMES = ['s', 'b', 'i', 'd', 'f', 'ts', 't', 'day', 'j'] as const;

/**
 * The reference: the rows bound as parameters of plain multi-row INSERTs (epoch ms → timestamps,
 * ms → days), a few hundred rows a statement (one statement per row took 20–30 s here).
 */
async function insertBound(con: DuckDBConnection, table: string, rows: readonly Row[]) {
  const PER = 400;
  for (let at = 0; at < rows.length; at += PER) {
    const part = rows.slice(at, at + PER);
    const tuples = part.map((_, k) => {
      const p = (j: number) => `$${k * NAMES.length + j}`;
      return `(${p(1)}::VARCHAR, ${p(2)}::BIGINT, ${p(3)}::INTEGER, ${p(4)}::DOUBLE, ${p(5)}::BOOLEAN,
        make_timestamptz(${p(6)}::BIGINT * 1000), make_timestamp(${p(7)}::BIGINT * 1000),
        CAST(make_timestamp(${p(8)}::BIGINT * 1000) AS DATE), ${p(9)}::JSON)`;
    });
    await con.run(
      `INSERT INTO ${table} VALUES ${tuples.join(', ')}`,
      part.flatMap((r) =>
        NAMES.map((n) => {
          const v = r[n];
          if (v === undefined || v === null) return null;
          if (v instanceof Date) return v.getTime();
          if (typeof v === 'bigint') return v.toString();
          return v;
        }),
      ) as (string | number | boolean | null)[],
    );
  }
}

const dump = async (con: DuckDBConnection, table: string) =>
  JSON.stringify((await con.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`)).getRowObjectsJson());

const STRINGS = [
  '',
  'a',
  'AB-123-CD',
  'exactly12chr',
  'thirteen_char',
  'a much longer string than twelve bytes',
  'é',
  'Zürich',
  '東京',
  '🚗 car',
  'tab\tand\nnewline',
  ' padded ',
];

describe('appendRows through laid-out data chunks', () => {
  it('stores every type exactly as a row-by-row INSERT does, nulls and chunk edges included', async () => {
    const con = await freshCon();
    await con.run(`CREATE TABLE fast (${COLS})`);
    await con.run(`CREATE TABLE ref (${COLS})`);
    const rows: Row[] = [];
    // More than two chunks (2,048 rows each), so rows on both sides of a chunk edge are checked.
    for (let k = 0; k < 4_200; k++)
      rows.push({
        s: k % 13 === 12 ? null : STRINGS[k % STRINGS.length]! + (k % 3 === 0 ? '' : String(k)),
        b: k % 11 === 0 ? null : k % 7 === 0 ? 2n ** 60n + BigInt(k) : (k - 2_000) * 1_000_003,
        i: k % 5 === 0 ? undefined : k - 2_100,
        d: k % 17 === 0 ? null : (k - 2_000) / 7,
        f: k % 19 === 0 ? null : k % 2 === 0,
        ts: k % 23 === 0 ? null : -86_400_000 * 400 + k * 3_600_017,
        t: k % 29 === 0 ? null : new Date(1_700_000_000_123 + k * 61_000),
        day: k % 31 === 0 ? null : 1_700_000_000_000 + k * 86_400_000,
        j: k % 37 === 0 ? null : JSON.stringify({ k, s: STRINGS[k % STRINGS.length] }),
      });
    await appendRows(con, 'fast', rows);
    await insertBound(con, 'ref', rows);
    expect(await dump(con, 'fast')).toEqual(await dump(con, 'ref'));
    const n = (await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM fast')).getRowObjectsJS()[0]!.n;
    expect(n).toBe(rows.length);
    // Strings compare and group by their bytes: an inlined one equals the same text written by SQL.
    const eq = await con.runAndReadAll(
      "SELECT count(*)::INTEGER AS n FROM fast WHERE s IN ('AB-123-CD', 'exactly12chr', '', 'é')",
    );
    expect(eq.getRowObjectsJS()[0]!.n).toBeGreaterThan(0);
    const eqRef = await con.runAndReadAll(
      "SELECT count(*)::INTEGER AS n FROM ref WHERE s IN ('AB-123-CD', 'exactly12chr', '', 'é')",
    );
    expect(eq.getRowObjectsJS()).toEqual(eqRef.getRowObjectsJS());
    con.closeSync();
  });
});

/** Trips rows keyed by trip_id; `v` tells versions apart. */
const trip = (id: string, v: number, startMs = 1_750_000_000_000): Row => ({
  account: 'a',
  trip_id: id,
  vehicle_id: 7,
  registration: `R-${v}`,
  start_time: startMs,
  end_time: startMs + 60_000 * v,
  trip_distance_m: v * 100,
  driver_id: v % 2 ? null : `d${v}`,
});

/**
 * The reference: INSERT OR REPLACE of the rows in turn, each statement its own transaction (DuckDB
 * 1.5 runs out of memory replacing one key many times inside one transaction). One statement
 * takes the rows up to the next repeat of a key (a statement may not replace a row it inserted),
 * so it leaves what one statement per row leaves, in a few statements instead of thousands.
 */
async function replaceInTurn(con: DuckDBConnection, rows: readonly Row[]) {
  let at = 0;
  while (at < rows.length) {
    const keys = new Set<string>();
    let end = at;
    while (end < rows.length && !keys.has(`${rows[end]!.account}|${rows[end]!.trip_id}`))
      keys.add(`${rows[end]!.account}|${rows[end++]!.trip_id}`);
    const part = rows.slice(at, end);
    const tuples = part.map((_, k) => {
      const p = (j: number) => `$${k * 8 + j}`;
      return `(${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, make_timestamptz(${p(5)}::BIGINT * 1000), make_timestamptz(${p(6)}::BIGINT * 1000), ${p(7)}, ${p(8)})`;
    });
    await con.run(
      `INSERT OR REPLACE INTO trips (account, trip_id, vehicle_id, registration, start_time, end_time, trip_distance_m, driver_id)
       VALUES ${tuples.join(', ')}`,
      part.flatMap((r) => [
        r.account as string,
        r.trip_id as string,
        r.vehicle_id as number,
        r.registration as string,
        r.start_time as number,
        r.end_time as number,
        r.trip_distance_m as number,
        (r.driver_id ?? null) as string | null,
      ]),
    );
    at = end;
  }
}

describe('appendRows lets the event loop run between chunks', () => {
  it('a big append gives other work (a server answering) a turn between its chunks, and stores every row', async () => {
    const con = await freshCon();
    await con.run('CREATE TABLE big (s VARCHAR, b BIGINT)');
    const N = 10 * 2048 + 5;
    const rows = Array.from({ length: N }, (_, i) => ({ s: `row ${i}`, b: i }));
    // Event-loop turns so far, and the turn each chunk was handed to DuckDB in.
    let turns = 0;
    let appending = true;
    const tick = () => {
      if (!appending) return;
      turns++;
      setImmediate(tick);
    };
    const chunkTurns: number[] = [];
    const createAppender = con.createAppender.bind(con);
    con.createAppender = async (...a: Parameters<typeof createAppender>) => {
      const ap = await createAppender(...a);
      const append = ap.appendDataChunk.bind(ap);
      ap.appendDataChunk = (chunk) => {
        chunkTurns.push(turns);
        append(chunk);
      };
      return ap;
    };
    setImmediate(tick);
    const n = await inTransaction(con, () => appendRows(con, 'big', rows)).finally(() => (appending = false));
    expect(n).toBe(N);
    expect(chunkTurns).toHaveLength(11);
    // Each chunk in a later turn than the one before (the code before handed all 11 over in one
    // stretch of 20,000 rows: the same turn).
    for (let k = 1; k < chunkTurns.length; k++) expect(chunkTurns[k]).toBeGreaterThan(chunkTurns[k - 1]!);
    const r = await con.runAndReadAll('SELECT count(*)::INTEGER AS n, sum(b)::DOUBLE AS s FROM big');
    expect(r.getRowObjectsJS()[0]).toEqual({ n: N, s: (N * (N - 1)) / 2 });
    con.closeSync();
  });
});

describe('upsertRows: one row per key, the last given', () => {
  it('leaves what INSERT OR REPLACE row by row leaves: duplicates in a batch, rows replaced across batches', async () => {
    const batches: Row[][] = [
      [trip('t1', 1), trip('t2', 1), trip('t1', 2), trip('t3', 1), trip('t1', 3)],
      [trip('t2', 4), trip('t4', 1), trip('t4', 5), trip('t5', 1)],
      [trip('t5', 6), trip('t1', 7), trip('t1', 7), trip('t6', 2)],
      // Many rows, so the merge's staging table holds more than one chunk; every key twice.
      Array.from({ length: 2_100 }, (_, k) => trip(`m${k % 1_050}`, k)),
    ];
    const fast = await freshCon();
    const ref = await freshCon();
    for (const b of batches) {
      await inTransaction(fast, () => upsertRows(fast, 'trips', ['account', 'trip_id'], b));
      await replaceInTurn(ref, b);
    }
    expect(await dump(fast, 'trips')).toEqual(await dump(ref, 'trips'));
    const t1 = (await fast.runAndReadAll("SELECT registration FROM trips WHERE trip_id = 't1'")).getRows();
    expect(t1).toEqual([['R-7']]);
    fast.closeSync();
    ref.closeSync();
  });

  it('appends the rows marked fresh and merges the others; the result is the same', async () => {
    const fast = await freshCon();
    const ref = await freshCon();
    const first = [trip('t1', 1), trip('t2', 1), trip('t3', 1)];
    for (const con of [fast, ref]) await replaceInTurn(con, first);
    // t1 and t2 are stored: only t9 and t8 may be appended; t9 is given twice.
    const next = [trip('t1', 2), trip('t9', 1), trip('t2', 3), trip('t9', 4), trip('t8', 1)];
    const fresh = (p: number) => next[p]!.trip_id === 't9' || next[p]!.trip_id === 't8';
    await inTransaction(fast, () => upsertRows(fast, 'trips', ['account', 'trip_id'], next, fresh));
    await replaceInTurn(ref, next);
    expect(await dump(fast, 'trips')).toEqual(await dump(ref, 'trips'));
    fast.closeSync();
    ref.closeSync();
  });

  it('lastPerKey keeps the last row of each key, in order, and a Date key equals its epoch ms', () => {
    const a = { k: 1, at: new Date(5), v: 'a' };
    const b = { k: 2, at: 5, v: 'b' };
    const c = { k: 1, at: 5, v: 'c' };
    expect(lastPerKey(RowBlock.pack([a, b, c]), ['k', 'at'])).toEqual(Uint32Array.of(1, 2));
    // (Dates only in the key column: kept as epoch ms, still equal to the number)
    expect(lastPerKey(RowBlock.pack([a, { ...c, at: new Date(5) }]), ['k', 'at'])).toEqual(Uint32Array.of(1));
    expect(lastPerKey(RowBlock.pack([a, b]), ['k', 'at'])).toBeNull();
  });
});
