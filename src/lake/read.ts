/**
 * The lake as a read-only Database: an in-memory DuckDB whose tables (made by the same
 * migrations as a DuckDB file) are replaced by views of the same name and columns over
 * read_parquet(<lake>/<table>/*\/*\/data.parquet, hive_partitioning), so the same report SQL runs
 * unchanged, for every account. The views list the files at query time: a partition a worker
 * publishes later is seen by the next request.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FleetsyncError } from '../errors.ts';
import { openDatabase, type Database } from '../store/db.ts';
import { LAKE_FILE, lakeTables, lit, q } from './publish.ts';

function hasFiles(dir: string): boolean {
  if (!existsSync(dir)) return false;
  for (const a of readdirSync(dir))
    if (a.startsWith('account=') && statSync(join(dir, a)).isDirectory())
      for (const m of readdirSync(join(dir, a))) if (existsSync(join(dir, a, m, LAKE_FILE))) return true;
  return false;
}

/** The accounts present in the lake (those with an `accounts` partition), sorted. */
export function lakeAccounts(lakeDir: string): string[] {
  const dir = join(lakeDir, 'accounts');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => d.startsWith('account='))
    .map((d) => d.slice('account='.length))
    .sort();
}

export async function openLake(lakeDir: string): Promise<Database> {
  if (!existsSync(lakeDir) || !statSync(lakeDir).isDirectory())
    throw new FleetsyncError('E_USAGE', `--lake: no lake directory at ${lakeDir}`);
  const db = await openDatabase(':memory:');
  const con = await db.connect();
  try {
    for (const t of await lakeTables(con)) {
      const dir = join(lakeDir, t.name);
      if (!hasFiles(dir)) continue; // the empty table stays: no rows of this kind yet
      const cols = t.columns.map((c) => `CAST(${q(c.name)} AS ${c.type}) AS ${q(c.name)}`);
      await con.run(`DROP TABLE ${q(t.name)}`);
      await con.run(
        `CREATE VIEW ${q(t.name)} AS SELECT ${cols.join(', ')} FROM read_parquet(${lit(
          join(dir, '*', '*', LAKE_FILE),
        )}, hive_partitioning = true, hive_types = {'account': VARCHAR, 'month': VARCHAR})`,
      );
    }
  } catch (e) {
    con.closeSync();
    db.close();
    throw e;
  }
  con.closeSync();
  return db;
}
