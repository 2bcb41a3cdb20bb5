/**
 * Evidence for the sync's write bound (not part of `npm run bench`):
 * `node --import tsx bench/experiments/group-commit.ts [units]` writes N odometer units with the
 * sync's own calls (DELETE window rows, appendRows, deleteLedgerWindow, insertLedger) — one
 * transaction per unit as runSync does today, then 10 and 50 units per transaction, then 50 per
 * transaction with one set-based DELETE and one append per table. Prints ms per unit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction, openDatabase } from '../../src/store/db.ts';
import { appendRows } from '../../src/store/write.ts';
import { deleteLedgerWindow, insertLedger, type LedgerEntry } from '../../src/sync/ledger.ts';

const N = Number(process.argv[2] ?? 1400);
const MONTH = 30 * 86_400_000;
const units = Array.from({ length: N }, (_, i) => {
  const m = Math.floor(i / 400);
  return { vid: 1000 + (i % 400), w: { startMs: 1.75e12 + m * MONTH, endMs: 1.75e12 + (m + 1) * MONTH } };
});
type U = (typeof units)[number];
const iso = (ms: number) => new Date(ms).toISOString();
const row = (u: U) => ({
  account: 'b',
  vehicle_id: u.vid,
  window_start: u.w.startMs,
  window_end: u.w.endMs,
  start_odometer_m: 1,
  end_odometer_m: 2,
  distance_m: 1,
  current_odometer_m: 2,
  last_event_at: u.w.endMs - 1,
  odometer_reset: false,
  terminal_has_changed: false,
});
const entry = (u: U): LedgerEntry => ({
  stream: 'odometer',
  scope: String(u.vid),
  startMs: u.w.startMs,
  endMs: u.w.endMs,
  status: 'done',
  rows: 1,
  requests: 1,
});

async function perUnit(con: DuckDBConnection, group: U[]) {
  for (const u of group) {
    await con.run(
      'DELETE FROM odometer_windows WHERE account = $1 AND vehicle_id = $2 AND window_start >= $3 AND window_end <= $4',
      ['b', u.vid, iso(u.w.startMs), iso(u.w.endMs)],
    );
    await appendRows(con, 'odometer_windows', [row(u)]);
    await deleteLedgerWindow(con, 'b', 'odometer', String(u.vid), u.w);
    await insertLedger(con, 'b', 'r', Date.now(), [entry(u)]);
  }
}

async function setBased(con: DuckDBConnection, group: U[]) {
  // Literals only for brevity here (numbers and ISO strings made above); production code would bind or stage keys.
  const keys = (q: (u: U) => string) =>
    group
      .map((u) => `(${q(u)}, '${iso(u.w.startMs)}'::TIMESTAMPTZ, '${iso(u.w.endMs)}'::TIMESTAMPTZ)`)
      .join(',');
  await con.run(
    `DELETE FROM odometer_windows o USING (VALUES ${keys((u) => String(u.vid))}) AS k(v, s, e)
     WHERE o.account = 'b' AND o.vehicle_id = k.v AND o.window_start >= k.s AND o.window_end <= k.e`,
  );
  await appendRows(con, 'odometer_windows', group.map(row));
  await con.run(
    `DELETE FROM ledger l USING (VALUES ${keys((u) => `'${u.vid}'`)}) AS k(sc, s, e)
     WHERE l.account = 'b' AND l.stream = 'odometer' AND l.scope = k.sc AND l.window_start >= k.s AND l.window_end <= k.e`,
  );
  await insertLedger(con, 'b', 'r', Date.now(), group.map(entry));
}

const variants: [string, number, (con: DuckDBConnection, g: U[]) => Promise<void>][] = [
  ['1 unit per transaction (runSync today)', 1, perUnit],
  ['10 units per transaction', 10, perUnit],
  ['50 units per transaction', 50, perUnit],
  ['50 units per transaction, one statement per table', 50, setBased],
];
for (const [name, size, write] of variants) {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-group-commit-'));
  const db = await openDatabase(join(dir, 'u.duckdb'));
  const con = await db.connect();
  const t0 = performance.now();
  for (let i = 0; i < units.length; i += size) {
    const g = units.slice(i, i + size);
    await inTransaction(con, () => write(con, g));
  }
  const ms = performance.now() - t0;
  process.stdout.write(
    `${N} odometer units, ${name}: ${Math.round(ms)} ms (${(ms / N).toFixed(2)} ms/unit)\n`,
  );
  con.closeSync();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
