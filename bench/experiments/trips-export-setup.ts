/**
 * What the trips-export experiments share: a seeded database opened (give it a copy of the seed),
 * a temp directory for the files, the trips report's range of `rows` trips, its parameters, bound
 * values and query, the model macros prepared. THREADS=n sets DuckDB's threads.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseReportParams } from '../../src/reports/params.ts';
import { getReport, queryName } from '../../src/reports/registry.ts';
import { bindings } from '../../src/reports/run.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { loadSql } from '../../src/store/queries.ts';
import { openDatabase } from '../../src/store/db.ts';
import { exportRange } from '../exports.ts';
import { ACCOUNT } from '../seed.ts';

export async function tripsExportSetup(dbPath: string, rows: number, dirPrefix: string) {
  const sidecar = JSON.parse(readFileSync(`${dbPath}.json`, 'utf8')) as { nowMs: number; timezone: string };
  const db = await openDatabase(dbPath);
  const con = await db.connect();
  if (process.env.THREADS) await con.run(`SET threads = ${Number(process.env.THREADS)}`);
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const zone = sidecar.timezone;
  const { from, to } = await exportRange(con, zone, rows);
  const def = getReport('trips')!;
  const scope = { account: ACCOUNT, zone, nowMs: sidecar.nowMs };
  const params = parseReportParams({ from, to }, def, scope);
  const values = bindings(scope, params);
  await prepareModelConnection(con);
  const query = loadSql(queryName(def));
  return { db, con, dir, zone, from, to, def, scope, params, values, query };
}
