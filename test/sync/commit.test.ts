/**
 * The group committer's set-based writes: many windows written as one DELETE and one append or
 * merge per table must leave exactly what writing them one by one leaves, and one bad window in
 * a group must not take the others down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { inTransaction, openDatabase, type Database } from '../../src/store/db.ts';
import { applyWrites, groupCommitter, writeBytes, type WindowWrite } from '../../src/sync/commit.ts';
import { ledgerRange, ledgerRows } from '../../src/sync/ledger.ts';
import type { Row } from '../../src/store/write.ts';
import { RowBlock } from '../../src/store/rows.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const dirs: string[] = [];
const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function freshDb(): Promise<{ db: Database; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-commit-'));
  dirs.push(dir);
  const path = join(dir, 'c.duckdb');
  const db = await openDatabase(path);
  open.push(db);
  return { db, path };
}

/** An odometer window of a vehicle over days [d, d + 1), with its ledger row. */
function odometerWrite(vehicle: number, d: number, distance: number, run: string): WindowWrite {
  const w = { startMs: T0 + d * DAY, endMs: T0 + (d + 1) * DAY };
  return {
    deletes: [
      {
        table: 'odometer_windows',
        eq: { vehicle_id: vehicle },
        within: ['window_start', 'window_end'],
        ...w,
      },
      ledgerRange('odometer', String(vehicle), w),
    ],
    inserts: [
      {
        table: 'odometer_windows',
        rows: [
          {
            account: 'a',
            vehicle_id: vehicle,
            window_start: w.startMs,
            window_end: w.endMs,
            start_odometer_m: 1000,
            end_odometer_m: 1000 + distance,
            distance_m: distance,
            odometer_reset: false,
            terminal_has_changed: false,
          },
        ],
      },
      {
        table: 'ledger',
        rows: ledgerRows('a', run, T0 + 40 * DAY, [
          { stream: 'odometer', scope: String(vehicle), ...w, status: 'done', rows: 1, requests: 1 },
        ]),
      },
    ],
  };
}

/** A trips window of days [d, d + 1) returning `trips` (some may start in a neighbouring window). */
function tripsWrite(d: number, trips: { id: string; startDay: number }[]): WindowWrite {
  return {
    deletes: [{ table: 'trips', eq: {}, at: 'start_time', startMs: T0 + d * DAY, endMs: T0 + (d + 1) * DAY }],
    inserts: [
      {
        table: 'trips',
        key: ['account', 'trip_id'],
        rows: trips.map((t) => ({
          account: 'a',
          trip_id: t.id,
          vehicle_id: 7,
          registration: 'AB 1',
          start_time: T0 + t.startDay * DAY + 23 * 3_600_000,
          end_time: T0 + t.startDay * DAY + 25 * 3_600_000,
          trip_distance_m: 5000,
        })),
      },
    ],
  };
}

/**
 * A fuel level series window of a vehicle over days [d, d + 1): readings every 6 hours at
 * `level`, one given twice, and (with `edge`) one at the window's end, which lies in the next
 * window's range (the rows the merge must replace rather than append).
 */
function levelWrite(vehicle: number, d: number, level: number, edge = false): WindowWrite {
  const w = { startMs: T0 + d * DAY, endMs: T0 + (d + 1) * DAY };
  const at = [0, 6, 12, 18, 12].map((h) => w.startMs + h * 3_600_000);
  if (edge) at.push(w.endMs);
  return {
    deletes: [{ table: 'fuel_level_history', eq: { vehicle_id: vehicle }, at: 'reading_time', ...w }],
    inserts: [
      {
        table: 'fuel_level_history',
        key: ['account', 'vehicle_id', 'reading_time'],
        rows: at.map((t, i) => ({
          account: 'a',
          vehicle_id: vehicle,
          reading_time: t,
          level_l: level + i,
          accurate: i % 2 === 0,
        })),
      },
    ],
  };
}

/**
 * A fleet-wide fills day (fuelFillsDayUnit's write): day d of the vehicles 1..n, each vehicle's
 * range and ledger range replaced, a fill at noon for every vehicle whose id is a multiple of `every`.
 */
function fleetFillsWrite(n: number, d: number, every: number, run: string): WindowWrite {
  const w = { startMs: T0 + d * DAY, endMs: T0 + (d + 1) * DAY };
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  return {
    deletes: [
      ...ids.map((v) => ({ table: 'fuel_fills', eq: { vehicle_id: v }, at: 'fill_time', ...w })),
      ...ids.map((v) => ledgerRange('fuel_fills', String(v), w)),
    ],
    inserts: [
      {
        table: 'fuel_fills',
        key: ['account', 'vehicle_id', 'fill_time'],
        rows: ids
          .filter((v) => v % every === 0)
          .map((v) => ({ account: 'a', vehicle_id: v, fill_time: w.startMs + DAY / 2, amount_l: v + d })),
      },
      {
        table: 'ledger',
        rows: ledgerRows(
          'a',
          run,
          T0 + 40 * DAY,
          ids.map((v) => ({
            stream: 'fuel_fills' as const,
            scope: String(v),
            ...w,
            status: 'done' as const,
            rows: 0,
            requests: 0,
          })),
        ),
      },
    ],
  };
}

/** A window whose write fails inside the transaction (a table that does not exist). */
const failingWrite = (): WindowWrite => ({
  deletes: [],
  inserts: [],
  custom: async (c) => {
    await c.run('INSERT INTO no_such_table VALUES (1)');
  },
});

const countRows = async (con: DuckDBConnection, table: string) =>
  Number((await con.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${table}`)).getRowObjectsJS()[0]!.n);

/** A committer on a fresh database (groups of at most `maxGroup` windows). */
async function freshCommitter(maxGroup?: number) {
  const { db } = await freshDb();
  const con = await db.connect();
  return { con, committer: groupCommitter(con, 'a', { maxGroup }) };
}

/**
 * The dumps of two databases after the same rounds of windows: one written a window per
 * transaction, the other a round per transaction (as the committer groups them).
 */
async function oneByOneAndGrouped(rounds: readonly WindowWrite[][]): Promise<[Dump, Dump]> {
  const a = await freshDb();
  const ca = await a.db.connect();
  for (const round of rounds) for (const w of round) await inTransaction(ca, () => applyWrites(ca, 'a', [w]));
  ca.closeSync();
  const b = await freshDb();
  const cb = await b.db.connect();
  for (const round of rounds) await inTransaction(cb, () => applyWrites(cb, 'a', round));
  cb.closeSync();
  a.db.close();
  b.db.close();
  open.length = 0;
  return [await dumpWithLevels(a.path), await dumpWithLevels(b.path)];
}

type Dump = Record<string, string>;

/** dumpDatabase, plus the fuel level series. */
async function dumpWithLevels(path: string): Promise<Dump> {
  const out = await dumpDatabase(path);
  const db = await openDatabase(path);
  const con = await db.connect();
  const rows = await con.runAndReadAll('SELECT * FROM fuel_level_history ORDER BY ALL');
  out.fuel_level_history = JSON.stringify(rows.getRowObjectsJson());
  con.closeSync();
  db.close();
  return out;
}

describe('group commit, set-based', () => {
  it('a group of windows leaves exactly what the same windows written one by one leave', async () => {
    // Round 1 stores windows; round 2 pulls some again with new figures (replacing rows and
    // ledger rows), plus trips seen by two neighbouring windows.
    const round1 = [
      ...[1, 2, 3].flatMap((v) => [0, 1, 2, 3].map((d) => odometerWrite(v, d, 100 * v + d, 'r1'))),
      tripsWrite(0, [{ id: 't0', startDay: 0 }]),
      tripsWrite(1, [
        { id: 't0', startDay: 0 },
        { id: 't1', startDay: 1 },
      ]),
    ];
    const round2 = [
      odometerWrite(2, 1, 999, 'r2'),
      odometerWrite(3, 3, 777, 'r2'),
      odometerWrite(1, 4, 5, 'r2'),
      tripsWrite(1, [{ id: 't1b', startDay: 1 }]), // t1 is gone from the API: removed
      tripsWrite(2, [
        { id: 't1b', startDay: 1 },
        { id: 't2', startDay: 2 },
      ]),
    ];
    const [da, dbb] = await oneByOneAndGrouped([round1, round2]);
    expect(dbb).toEqual(da);
    expect(da.trips).toContain('t1b');
    expect(da.trips).not.toMatch(/"t1"/);
    expect(da.odometer_windows).toContain('999');
  });

  it('keyed rows inside their own window are appended, the rest merged: the same as one by one', async () => {
    // Round 2 pulls windows again with new levels; readings at a window's end clash with the
    // next window's first reading (stored, or in the same group).
    const round1 = [1, 2].flatMap((v) => [0, 1, 2].map((d) => levelWrite(v, d, 10 * v + d, d === 0)));
    const round2 = [levelWrite(1, 1, 50, true), levelWrite(2, 0, 60, true), levelWrite(2, 3, 70, true)];
    const [da, dbb] = await oneByOneAndGrouped([round1, round2]);
    expect(dbb.fuel_level_history).toEqual(da.fuel_level_history);
    const stored = JSON.parse(da.fuel_level_history!) as { vehicle_id: number; reading_time: string }[];
    expect(new Set(stored.map((r) => `${r.vehicle_id} ${r.reading_time}`)).size).toBe(stored.length);
    expect(da.fuel_level_history).toContain('"level_l":50');
  });

  it('fleet-wide fills days (a range per vehicle in each) leave what they leave one by one', async () => {
    // 300 vehicles × 4 days in one group (1,200 ranges of each table in one statement each); then
    // two days pulled again, where other vehicles filled.
    const round1 = [0, 1, 2, 3].map((d) => fleetFillsWrite(300, d, 7, 'r1'));
    const round2 = [fleetFillsWrite(300, 1, 11, 'r2'), fleetFillsWrite(300, 3, 13, 'r2')];
    const [da, dbb] = await oneByOneAndGrouped([round1, round2]);
    expect(dbb).toEqual(da);
    const fills = JSON.parse(da.fuel_fills!) as { vehicle_id: number; fill_time: string }[];
    // day 0 and 2: every 7th of 300 (42 each); day 1: every 11th (27); day 3: every 13th (23)
    expect(fills.length).toBe(42 + 27 + 42 + 23);
    const day1 = fills.filter((f) => f.fill_time.startsWith('2026-03-02'));
    expect(day1.map((f) => Number(f.vehicle_id))).toEqual(Array.from({ length: 27 }, (_, i) => 11 * (i + 1)));
    // one ledger row per vehicle-day, the days pulled again replaced, not added to
    expect((JSON.parse(da.ledger!) as unknown[]).length).toBe(4 * 300);
  });

  it('the text keys of a group are matched exactly, whatever characters they hold', async () => {
    // The grouped delete binds each key column as one JSON text (write.ts): scopes with a comma,
    // quotes, a backslash, a newline and non-ASCII letters are each that scope's own range.
    const scopes = ['1,2', 'a"b', 'c\\d', 'e\nf', 'Zürich–Ōsaka', "o'k", '[1]', ' '];
    const write = (scope: string, d: number, run: string): WindowWrite => {
      const w = { startMs: T0 + d * DAY, endMs: T0 + (d + 1) * DAY };
      return {
        deletes: [ledgerRange('odometer', scope, w)],
        inserts: [
          {
            table: 'ledger',
            rows: ledgerRows('a', run, T0 + 40 * DAY, [
              { stream: 'odometer', scope, ...w, status: 'done', rows: run === 'r2' ? 2 : 1, requests: 1 },
            ]),
          },
        ],
      };
    };
    const round1 = scopes.flatMap((s) => [0, 1].map((d) => write(s, d, 'r1')));
    // pulled again: every other scope's day 1 (replaced, not added to)
    const round2 = scopes.filter((_, i) => i % 2 === 0).map((s) => write(s, 1, 'r2'));
    const [da, dbb] = await oneByOneAndGrouped([round1, round2]);
    expect(dbb).toEqual(da);
    const ledger = JSON.parse(da.ledger!) as { scope: string; rows: number }[];
    expect(ledger.length).toBe(scopes.length * 2);
    expect(new Set(ledger.map((r) => r.scope))).toEqual(new Set(scopes));
    expect(
      ledger
        .filter((r) => Number(r.rows) === 2)
        .map((r) => r.scope)
        .sort(),
    ).toEqual(scopes.filter((_, i) => i % 2 === 0).sort());
  });

  it('one bad window in a group fails alone; the others are stored', async () => {
    const { con, committer } = await freshCommitter();
    const bad = failingWrite();
    const results = await Promise.allSettled([
      committer.submit(odometerWrite(1, 0, 10, 'r')),
      committer.submit(bad),
      committer.submit(odometerWrite(2, 0, 20, 'r')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = (
      await con.runAndReadAll('SELECT vehicle_id, distance_m FROM odometer_windows ORDER BY vehicle_id')
    ).getRowObjectsJS();
    expect(rows.map((r) => [Number(r.vehicle_id), Number(r.distance_m)])).toEqual([
      [1, 10],
      [2, 20],
    ]);
    const ledger = await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM ledger');
    expect(Number(ledger.getRowObjectsJS()[0]!.n)).toBe(2);
    con.closeSync();
  });

  it('windows finished in the same tick share one transaction; a full group starts the next', async () => {
    const { con, committer } = await freshCommitter(4);
    // Ten windows at once, at most four per transaction: 4 + 4 + 2.
    await Promise.all(
      Array.from({ length: 10 }, (_, v) => committer.submit(odometerWrite(v + 1, 0, v, 'r'))),
    );
    expect(committer.transactions).toBe(3);
    expect(await countRows(con, 'odometer_windows')).toBe(10);
    con.closeSync();
  });

  it('weighs a window by its columns: 8 bytes a number (a byte more with a null), a string once however often it repeats', () => {
    const write = (rows: Row[]): WindowWrite => ({ deletes: [], inserts: [{ table: 't', rows }] });
    // 4 rows: n 4 × 8; x 4 × 8 + its null mask 4; s a slot each (4 × 8) and 'abcd' once (16 + 4)
    const rows = [
      { n: 1, x: 1.5, s: 'abcd' },
      { n: 2, x: null, s: 'abcd' },
      { n: 3, x: 2.5, s: 'abcd' },
      { n: 4, x: 3.5, s: 'abcd' },
    ];
    expect(writeBytes(write(rows))).toBe(32 + 36 + 32 + 20);
    // a distinct string per row is counted per row; a table with no rows weighs nothing
    const ids = Array.from({ length: 10 }, (_, i) => ({ id: `trip-${i}` }));
    expect(
      writeBytes({
        deletes: [],
        inserts: [
          { table: 't', rows: ids },
          { table: 'u', rows: [] },
        ],
      }),
    ).toBe(10 * 8 + 10 * (16 + 6));
    // a range to delete weighs 216 bytes: a fleet-wide fills day of 800 vehicles, 1,600 ranges
    expect(writeBytes({ deletes: fleetFillsWrite(800, 0, 1000, 'r').deletes, inserts: [] })).toBe(1600 * 216);
  });

  it("holds a submitted window as columns: the caller's row objects let go before the commit, every cell stored as given", async () => {
    const { con, committer } = await freshCommitter();
    const w = levelWrite(3, 0, 10, true);
    const given = w.inserts[0]!.rows as Row[];
    const done = committer.submit(w);
    // packed at submit, in the caller's TableRows too (the window's fetch result holds it until the commit)
    expect(w.inserts[0]!.rows).toBeInstanceOf(RowBlock);
    await done;
    const stored = await con.runAndReadAll(
      'SELECT epoch_ms(reading_time)::DOUBLE AS t, level_l, accurate FROM fuel_level_history ORDER BY reading_time',
    );
    // the reading given twice (at 12 h) kept once: the last given
    const last = new Map(given.map((r) => [r.reading_time as number, r]));
    expect(stored.getRowObjectsJS()).toEqual(
      [...last.values()]
        .sort((a, b) => (a.reading_time as number) - (b.reading_time as number))
        .map((r) => ({ t: r.reading_time, level_l: r.level_l, accurate: r.accurate })),
    );
    con.closeSync();
  });

  it('counts what waits, and `room` opens as the groups commit (failed windows included)', async () => {
    const { con, committer } = await freshCommitter(4);
    const per = writeBytes(odometerWrite(1, 0, 1, 'r'));
    expect(per).toBeGreaterThan(0);
    const writes = Array.from({ length: 10 }, (_, v) =>
      committer.submit(v === 9 ? failingWrite() : odometerWrite(v + 1, 0, v, 'r')).catch(() => undefined),
    );
    expect(committer.backlogBytes).toBe(9 * per); // the failing window has no rows
    // Room for fewer than 3 windows' rows: open only once the second group (windows 4–7) is stored.
    await committer.room(3 * per);
    expect(committer.transactions).toBe(2);
    expect(committer.backlogBytes).toBe(per); // window 8 (window 9 has no rows)
    expect(await countRows(con, 'odometer_windows')).toBe(8);
    await Promise.all(writes);
    expect(committer.backlogBytes).toBe(0);
    await committer.room(1); // nothing waits: at once
    con.closeSync();
  });

  it('a window failing alone is rejected with its error, and the committer goes on writing later windows', async () => {
    const { con, committer } = await freshCommitter();
    await expect(committer.submit(failingWrite())).rejects.toThrow(/no_such_table/);
    expect(committer.transactions).toBe(0);
    await committer.submit(odometerWrite(1, 0, 10, 'r'));
    await committer.submit(odometerWrite(2, 0, 20, 'r'));
    expect(committer.transactions).toBe(2);
    expect(await countRows(con, 'odometer_windows')).toBe(2);
    con.closeSync();
  });

  it('after a group fails, each good window is stored in its own transaction', async () => {
    const { con, committer } = await freshCommitter();
    const bad = failingWrite();
    const results = await Promise.allSettled([
      committer.submit(odometerWrite(1, 0, 10, 'r')),
      committer.submit(bad),
      committer.submit(odometerWrite(2, 0, 20, 'r')),
      committer.submit(odometerWrite(3, 0, 30, 'r')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(committer.transactions).toBe(3);
    con.closeSync();
  });

  it('on a full disk, the window that hit it and every window waiting fail with the disk error, and nothing more is written', async () => {
    const { con, committer } = await freshCommitter();
    // The disk fills while a group of three windows is written: the write fails with ENOSPC, as
    // a file-system call reports it.
    let diskWrites = 0;
    const diskFull: WindowWrite = {
      deletes: [],
      inserts: [],
      custom: async () => {
        diskWrites++;
        throw Object.assign(new Error('could not write the WAL: No space left on device'), {
          code: 'ENOSPC',
        });
      },
    };
    const results = await Promise.allSettled([
      committer.submit(odometerWrite(1, 0, 10, 'r')),
      committer.submit(diskFull),
      committer.submit(odometerWrite(2, 0, 20, 'r')),
    ]);
    // Not retried window by window on the broken disk: all three fail with the disk's error.
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'stored'))).toEqual([
      'could not write the WAL: No space left on device',
      'could not write the WAL: No space left on device',
      'could not write the WAL: No space left on device',
    ]);
    expect(diskWrites).toBe(1);
    // A window finished later is refused at once with the same error; nothing was stored.
    await expect(committer.submit(odometerWrite(3, 0, 30, 'r'))).rejects.toThrow(/No space left on device/);
    expect(committer.transactions).toBe(0);
    expect(await countRows(con, 'odometer_windows')).toBe(0);
    expect(await countRows(con, 'ledger')).toBe(0);
    con.closeSync();
  });

  it('names a column that is not in the table instead of building SQL from it', async () => {
    const { db } = await freshDb();
    const con = await db.connect();
    const w: WindowWrite = {
      deletes: [{ table: 'trips', eq: { 'x; DROP TABLE trips': 1 }, at: 'start_time', startMs: 0, endMs: 1 }],
      inserts: [],
    };
    await expect(inTransaction(con, () => applyWrites(con, 'a', [w]))).rejects.toThrow(
      /trips has no column x; DROP TABLE trips/,
    );
    con.closeSync();
  });
});
