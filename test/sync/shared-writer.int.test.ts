/**
 * A small run writes every stream's windows on one writer connection, grouped across streams
 * (src/sync/executor.ts, SHARED_WRITER_MAX_UNITS); a large one has a writer per ledger stream.
 * Either way the same rows, ledger, daily facts and day's coverage are stored.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;

/** The facts and coverage the commits kept (dumpDatabase has the raw tables and the ledger). */
async function dumpFacts(path: string): Promise<Record<string, string>> {
  const db = await openDatabase(path);
  const con = await db.connect();
  try {
    const out: Record<string, string> = {};
    for (const t of ['daily_facts', 'day_coverage'])
      out[t] = JSON.stringify(
        (await con.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowObjectsJson(),
      );
    return out;
  } finally {
    con.closeSync();
    db.close();
  }
}

/** A full-history sync into a file of its own; counts the connections the run opened. */
async function syncInto(name: string, sharedWriterMaxUnits?: number) {
  const opened = await openDatabase(join(h.dir, `${name}.duckdb`));
  let connections = 0;
  const db: Database = {
    ...opened,
    connect: () => (connections++, opened.connect()),
  };
  try {
    const summary = await runSync(
      { ...h.deps, db, ...(sharedWriterMaxUnits === undefined ? {} : { sharedWriterMaxUnits }) },
      { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
    );
    return { summary, connections, path: opened.path };
  } finally {
    opened.close();
  }
}

let shared: Awaited<ReturnType<typeof syncInto>>;
let perStream: Awaited<ReturnType<typeof syncInto>>;

beforeAll(async () => {
  // 6 vehicles (every kind of powertrain) over 20 days: every stream has windows
  h = await startHarness({ fleet: { vehicles: 6, days: 20 }, instantWaits: true });
  shared = await syncInto('shared');
  perStream = await syncInto('per-stream', 0);
}, 120_000);
afterAll(() => h?.close());

describe('the writers of a run', () => {
  it('a small run writes on one connection; with the bound at 0, a writer per ledger stream', () => {
    expect(shared.summary.outcome).toBe('ok');
    expect(perStream.summary.outcome).toBe('ok');
    const streams = Object.values(perStream.summary.streams).filter((s) => s.rows > 0).length;
    expect(streams).toBeGreaterThanOrEqual(8);
    // the run's own connection, the rules', the snapshots' … and its writers
    expect(perStream.connections - shared.connections).toBeGreaterThanOrEqual(streams - 2);
  });

  it('both store the same rows, ledger, daily facts and day coverage', async () => {
    expect(await dumpDatabase(shared.path)).toEqual(await dumpDatabase(perStream.path));
    const facts = await dumpFacts(shared.path);
    expect(JSON.parse(facts.daily_facts!).length).toBeGreaterThan(0);
    expect(JSON.parse(facts.day_coverage!).length).toBeGreaterThan(0);
    expect(facts).toEqual(await dumpFacts(perStream.path));
  });
});
