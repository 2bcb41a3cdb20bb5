/**
 * The write path before and after issue 16 in one process, alternating (so both see the same
 * machine load): `node --import tsx bench/experiments/ab-write.ts <old write.ts> [rows] [rounds]`.
 * Times appendRows and upsertRows (one transaction) of trips into fresh files: rows per second of
 * wall time and of CPU time (process.cpuUsage, DuckDB's threads included).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inTransaction, openDatabase } from '../../src/store/db.ts';
import * as fresh from '../../src/store/write.ts';
import { tripRow } from './trip-rows.ts';

type W = typeof fresh;
const old = (await import(process.argv[2]!)) as W;
const N = Number(process.argv[3] ?? 300_000);
const ROUNDS = Number(process.argv[4] ?? 3);
const rows = Array.from({ length: N }, (_, i) => tripRow(i));
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-ab-write-'));
let k = 0;
async function time(w: W, op: 'append' | 'upsert') {
  const db = await openDatabase(join(dir, `${k++}.duckdb`));
  const con = await db.connect();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await inTransaction(con, () =>
    op === 'append'
      ? w.appendRows(con, 'trips', rows)
      : w.upsertRows(con, 'trips', ['account', 'trip_id'], rows),
  );
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  con.closeSync();
  db.close();
  return { wall: N / (ms / 1000), cpu: N / ((c.user + c.system) / 1e6) };
}
try {
  for (let r = 0; r < ROUNDS; r++)
    for (const op of ['append', 'upsert'] as const) {
      const a = await time(old, op);
      const b = await time(fresh, op);
      console.log(
        `${op}: before ${Math.round(a.wall)} rows/s (${Math.round(a.cpu)} per CPU s), after ${Math.round(b.wall)} rows/s (${Math.round(b.cpu)} per CPU s): ${(b.wall / a.wall).toFixed(2)}× wall, ${(b.cpu / a.cpu).toFixed(2)}× CPU; load ${loadavg()[0]!.toFixed(1)}`,
      );
    }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
