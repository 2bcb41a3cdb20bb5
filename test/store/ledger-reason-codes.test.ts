/**
 * Migration 032: a database synced before the sync asked the model layer holds the old free-text
 * reasons on its flagged odometer and fuel-counter windows; opened again, they read as the reason
 * codes the sync writes now, and no other reason changes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { appendRows } from '../../src/store/write.ts';

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-reasons-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T = (iso: string) => Date.parse(iso);
const row = (stream: string, scope: string, day: number, status: string, reason: string | null) => ({
  account: 'a',
  stream,
  scope,
  window_start: T('2026-03-01T00:00:00Z') + day * 86_400_000,
  window_end: T('2026-03-02T00:00:00Z') + day * 86_400_000,
  status,
  fetched_at: T('2026-04-10T00:00:00Z'),
  rows: 1,
  requests: 1,
  run_id: 'old',
  reason,
});

describe('migration 032: the ledger reasons of flagged windows become reason codes', () => {
  it('rewrites the old texts of flagged windows only', async () => {
    const path = join(dir, 'old.duckdb');
    const before = [
      row('odometer', '1', 0, 'flagged', 'odometer_reset, terminal_has_changed'),
      row('odometer', '1', 1, 'flagged', 'odometer_reset'),
      row('odometer', '1', 2, 'flagged', 'terminal_has_changed'),
      row(
        'odometer',
        '1',
        3,
        'flagged',
        'accepted incomplete: after the maximum lateness of 10 days, no last event time',
      ),
      row('odometer', '1', 4, 'done', null),
      row('fuel_consumed', '1', 0, 'flagged', 'fuel counter went down (counter reset)'),
      row('fuel_consumed', '1', 1, 'done', null),
      row('trips', '*', 0, 'failed', 'fuel counter went down (counter reset)'),
    ];
    // A database as an older fleetsync left it: the ledger rows written, 032 not yet applied.
    let db = await openDatabase(path);
    let con = await db.connect();
    await appendRows(con, 'ledger', before);
    await con.run(`DELETE FROM schema_migrations WHERE name = '032_ledger_reason_codes.sql'`);
    con.closeSync();
    db.close();

    db = await openDatabase(path);
    con = await db.connect();
    const after = (
      await con.runAndReadAll('SELECT stream, window_start, reason FROM ledger ORDER BY stream, window_start')
    ).getRowObjectsJS();
    con.closeSync();
    db.close();
    expect(after.map((r) => [r.stream, r.reason])).toEqual([
      ['fuel_consumed', 'fuel_counter_went_down'],
      ['fuel_consumed', null],
      ['odometer', 'odometer_reset and terminal_has_changed'],
      ['odometer', 'odometer_reset'],
      ['odometer', 'terminal_has_changed'],
      ['odometer', 'accepted incomplete: after the maximum lateness of 10 days, no last event time'],
      ['odometer', null],
      // not a flagged counter window: left as it was
      ['trips', 'fuel counter went down (counter reset)'],
    ]);
  });
});
