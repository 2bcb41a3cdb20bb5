/**
 * Evidence for the keyed upsert's write path (issue 16): trip rows into the keyed trips table,
 * merged from a staging table several ways, into an empty table and into a table that already
 * holds `N` rows (a group commit of a later window, some keys already stored).
 * `node --import tsx bench/experiments/upsert.ts [rows]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDatabase } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { tripRow } from './trip-rows.ts';

const N = Number(process.argv[2] ?? 1_000_000);
const trip = tripRow;
const rows = Array.from({ length: N }, (_, i) => trip(i));
// A later group: 20,000 rows, 1 % of them keys already stored.
const later = Array.from({ length: 20_000 }, (_, i) => trip(i % 100 === 0 ? i : N + i));
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-exp-upsert-'));
let k = 0;
const cols =
  'account, trip_id, vehicle_id, registration, start_time, end_time, trip_distance_m, start_odometer_m, end_odometer_m, driver_id, start_location, end_location';
const ways: Record<string, (con: DuckDBConnection, rs: Row[]) => Promise<unknown>> = {
  'INSERT OR REPLACE from stage': async (con, rs) => {
    await appendRows(con, 'stage', rs);
    await con.run(`INSERT OR REPLACE INTO trips SELECT ${cols} FROM stage`);
  },
  'DELETE USING stage + INSERT from stage': async (con, rs) => {
    await appendRows(con, 'stage', rs);
    await con.run(
      'DELETE FROM trips AS t USING stage AS s WHERE t.account = s.account AND t.trip_id = s.trip_id',
    );
    await con.run(`INSERT INTO trips SELECT ${cols} FROM stage`);
  },
  'ON CONFLICT DO NOTHING count, then replace the rest': async (con, rs) => {
    await appendRows(con, 'stage', rs);
    await con.run(`INSERT INTO trips SELECT ${cols} FROM stage ON CONFLICT DO NOTHING`);
  },
};
try {
  for (const [name, fn] of Object.entries(ways))
    for (const phase of ['empty', 'later'] as const) {
      const db = await openDatabase(join(dir, `${k++}.duckdb`));
      const con = await db.connect();
      await con.run(`CREATE TEMP TABLE stage AS SELECT ${cols} FROM trips LIMIT 0`);
      if (phase === 'later') await appendRows(con, 'trips', rows);
      const rs = phase === 'empty' ? rows : later;
      const t0 = performance.now();
      await con.run('BEGIN');
      await fn(con, rs);
      await con.run('COMMIT');
      const ms = performance.now() - t0;
      const n = (await con.runAndReadAll('SELECT count(*) FROM trips')).getRows()[0]![0];
      console.log(
        `${name} (${phase}): ${Math.round(rs.length / (ms / 1000))} rows/s (${Math.round(ms)} ms, trips ${n}) load ${loadavg()[0]!.toFixed(1)}`,
      );
      con.closeSync();
      db.close();
    }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
