/**
 * The rules the sync asks of the model layer (src/sync/rules.ts), as a run uses them: many units
 * ask at once and each gets its own answer, over one connection; a run that pulls no odometer or
 * fuel window opens none; the run's end closes the one it opened. (What the answers are, and
 * that they equal the reports' codes: test/reports/model-layer.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { modelRules } from '../../src/sync/rules.ts';

const dirs: string[] = [];
const open: Database[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A database whose connections are counted and kept. */
async function countedDb() {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-rules-'));
  dirs.push(dir);
  const db = await openDatabase(join(dir, 'r.duckdb'));
  open.push(db);
  const opened: DuckDBConnection[] = [];
  return {
    opened,
    db: {
      connect: async () => {
        const c = await db.connect();
        opened.push(c);
        return c;
      },
    },
  };
}

describe('the rules a run asks of the model layer', () => {
  it('units asking at once each get their own answer, over one connection', async () => {
    const { db, opened } = await countedDb();
    const rules = modelRules(db);
    // 40 counter windows: every fourth went down by a litre; 40 odometer windows: every fifth reset.
    const [fuel, odometer] = await Promise.all([
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rules.fuelCounterWentDown({ counter_start_l: 100 + i, counter_end_l: i % 4 ? 120 + i : 99 + i }),
        ),
      ),
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rules.odometerFlag({ odometer_reset: i % 5 === 0, terminal_has_changed: false }),
        ),
      ),
    ]);
    expect(fuel.map((c, i) => (c === null ? null : i))).toEqual(
      Array.from({ length: 40 }, (_, i) => (i % 4 ? null : i)),
    );
    expect(new Set(fuel.filter((c) => c !== null))).toEqual(new Set(['fuel_counter_went_down']));
    expect(odometer.map((c, i) => (c === null ? null : i))).toEqual(
      Array.from({ length: 40 }, (_, i) => (i % 5 ? null : i)),
    );
    expect(opened).toHaveLength(1);
    await rules.close();
  });

  it('answers asked together take one statement per rule, litres of any kind and missing readings too', async () => {
    const { db, opened } = await countedDb();
    const rules = modelRules(db);
    const first = rules.odometerFlag({ odometer_reset: false, terminal_has_changed: false });
    await first; // the connection is open and its macros defined: count from here
    const statements: string[] = [];
    const c = opened[0]!;
    const run = c.runAndReadAll.bind(c);
    c.runAndReadAll = (sql, ...rest) => (statements.push(sql), run(sql, ...rest));
    const counters: [number | null, number | null][] = [
      [100, 120.5], // went up (litres not whole)
      [100.25, 99.75], // went down
      [null, 80], // a missing reading is no jump
      [80, null],
      [null, null],
      [3, 3],
    ];
    const [fuel, odometer] = await Promise.all([
      Promise.all(
        counters.map(([s, e]) => rules.fuelCounterWentDown({ counter_start_l: s, counter_end_l: e })),
      ),
      Promise.all(
        [true, false].flatMap((r) =>
          [true, false].map((t) => rules.odometerFlag({ odometer_reset: r, terminal_has_changed: t })),
        ),
      ),
    ]);
    expect(fuel).toEqual([null, 'fuel_counter_went_down', null, null, null, null]);
    expect(odometer.map((x) => x !== null)).toEqual([true, true, true, false]);
    expect(odometer.slice(1, 3)).toEqual(['odometer_reset', 'terminal_has_changed']);
    expect(statements).toHaveLength(2);
    await rules.close();
  });

  it('a run that asks nothing (say, trips only) opens no connection, and its end closes nothing', async () => {
    const { db, opened } = await countedDb();
    const rules = modelRules(db);
    await expect(rules.close()).resolves.toBeUndefined();
    expect(opened).toHaveLength(0);
  });

  it('the run’s end closes the connection the rules opened', async () => {
    const { db, opened } = await countedDb();
    const rules = modelRules(db);
    expect(await rules.odometerFlag({ odometer_reset: false, terminal_has_changed: true })).toBe(
      'terminal_has_changed',
    );
    await rules.close();
    await expect(opened[0]!.runAndReadAll('SELECT 1')).rejects.toThrow();
  });
});
