/**
 * A sync whose database runs out of its memory limit (SYNC_DB_MEMORY for `fleetsync sync`, a
 * smaller one here so that it happens at a test's size), as a user meets it: the windows that did
 * not fit fail with words that say so (E_DB_MEMORY) and what to do, nothing of them is stored, the
 * run is partial, and the next run with room completes — the file then holds exactly what a sync
 * that never ran out stores. `fleetsync sync` lowers its pool with room to grow back
 * (lowerDatabaseMemory): there the first commit that does not fit raises the pool to what it was
 * and is tried again, so the run completes and says so in its log.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerDatabaseMemory, openDatabase, setDatabaseMemory, type Database } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { addDays } from '../../src/time.ts';
import { diffTable, dumpDatabase } from '../helpers/dbdump.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;

const sync = (db: Database) =>
  runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay });

/** DuckDB's memory in use now (MB), every tag of its pool. */
async function poolMb(db: Database): Promise<number> {
  const con = await db.connect();
  try {
    const r = await con.runAndReadAll('SELECT sum(memory_usage_bytes)::DOUBLE AS b FROM duckdb_memory()');
    return Number(r.getRowObjectsJS()[0]!.b) / 2 ** 20;
  } finally {
    con.closeSync();
  }
}

let reference: string;
let squeezed: Database;
let first: RunSummary;
let failedWindows: {
  stream: string;
  scope: string;
  window_start: string;
  window_end: string;
  reason: string;
}[];
let tripsInFailed: number;
let second: RunSummary;
let lowered: RunSummary;
let grewBack: string[];
let loweredLimitAfter: string;

/** The fleet's first five days, a sync with room: every table and its index has its first blocks. */
const firstDays = (db: Database) =>
  runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: addDays(h.firstDay, 4) });

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 8, days: 30 }, instantWaits: true });
  // What syncs with room store: the first days, then the whole history.
  reference = join(h.dir, 'reference.duckdb');
  const ref = await openDatabase(reference);
  try {
    expect((await firstDays(ref)).outcome).toBe('ok');
    expect((await sync(ref)).outcome).toBe('ok');
  } finally {
    ref.close();
  }
  // The same, the whole history with the pool limited to 12 MB more than the first days hold
  // (from 8 to 16 MB more, some windows run out and the run's own statements do not).
  squeezed = await openDatabase(join(h.dir, 'squeezed.duckdb'));
  expect((await firstDays(squeezed)).outcome).toBe('ok');
  await setDatabaseMemory(squeezed, `${Math.ceil(await poolMb(squeezed)) + 12}MB`);
  first = await sync(squeezed);
  await setDatabaseMemory(squeezed, '256MB');
  const con = await squeezed.connect();
  try {
    failedWindows = (
      await con.runAndReadAll(
        "SELECT stream, scope, window_start::VARCHAR AS window_start, window_end::VARCHAR AS window_end, reason FROM ledger WHERE status = 'failed'",
      )
    ).getRowObjectsJS() as typeof failedWindows;
    // Trips are pulled in fleet-wide windows: a failed one must have left none of its trips.
    tripsInFailed = Number(
      (
        await con.runAndReadAll(
          "SELECT count(*) AS n FROM trips t JOIN ledger l ON l.stream = 'trips' AND l.status = 'failed' AND t.start_time >= l.window_start AND t.start_time < l.window_end",
        )
      ).getRowObjectsJS()[0]!.n,
    );
  } finally {
    con.closeSync();
  }
  second = await sync(squeezed);
  squeezed.close();
  // The same squeeze as `fleetsync sync` lowers its pool: with room to grow back.
  const low = await openDatabase(join(h.dir, 'lowered.duckdb'));
  try {
    expect((await firstDays(low)).outcome).toBe('ok');
    await lowerDatabaseMemory(low, `${Math.ceil(await poolMb(low)) + 12}MB`);
    const before = h.log.lines.length;
    lowered = await sync(low);
    grewBack = h.log.lines
      .slice(before)
      .filter((l) => /did not fit in the sync's lowered database memory/.test(l));
    const c = await low.connect();
    loweredLimitAfter = String(
      (await c.runAndReadAll(`SELECT current_setting('memory_limit') AS m`)).getRowObjectsJS()[0]!.m,
    );
    c.closeSync();
  } finally {
    low.close();
  }
}, 240_000);
afterAll(() => h?.close());

describe('a sync that runs out of the database memory limit', () => {
  it('fails the windows that did not fit, saying so in words, and the run is partial', () => {
    expect(first.outcome).toBe('partial');
    expect(failedWindows.length).toBeGreaterThan(0);
    for (const w of failedWindows) {
      expect(w.reason).toMatch(/did not fit in the database's memory limit/);
      expect(w.reason).toMatch(/nothing of the window was stored and the next run pulls it again/);
    }
  });

  it('stores nothing of a failed window', () => {
    // The trips' windows are the largest of this fleet: the first to run out.
    expect(failedWindows.some((w) => w.stream === 'trips')).toBe(true);
    expect(tripsInFailed).toBe(0);
  });

  it('completes on the next run with room, holding what a sync that never ran out holds', async () => {
    expect(second.outcome).toBe('ok');
    const [a, b] = [await dumpDatabase(reference), await dumpDatabase(join(h.dir, 'squeezed.duckdb'))];
    for (const t of Object.keys(a)) expect(b[t], `${t}: ${JSON.stringify(diffTable(a[t], b[t]))}`).toBe(a[t]);
  });
});

describe('a sync whose pool was lowered with room to grow back (as `fleetsync sync` lowers it)', () => {
  it('raises the pool at the first commit that does not fit, once, says so, and completes', async () => {
    expect(lowered.outcome).toBe('ok');
    expect(grewBack).toHaveLength(1);
    expect(grewBack[0]).toMatch(/memory_limit=/);
    // the limit the database was opened with (256 MB = 244.1 MiB; DuckDB reads its own text back
    // a tenth lower)
    expect(loweredLimitAfter).toMatch(/^244\.[01] MiB$/);
    const [a, b] = [await dumpDatabase(reference), await dumpDatabase(join(h.dir, 'lowered.duckdb'))];
    for (const t of Object.keys(a)) expect(b[t], `${t}: ${JSON.stringify(diffTable(a[t], b[t]))}`).toBe(a[t]);
  });
});
