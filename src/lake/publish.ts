/**
 * Publishes one account's tables from its DuckDB file to a Hive-partitioned Parquet lake:
 *
 *   <lake>/<table>/account=<account>/month=<YYYY-MM>/data.parquet
 *
 * The month is the month (UTC) of the table's first date/time column; a table without one goes
 * to month=all. Each file is written by DuckDB under a hidden temporary name in its partition
 * directory and renamed over data.parquet, so a reader sees each partition whole, old or new.
 * A partition the account no longer has is removed after the new ones are in place. The account
 * column is the partition key and is not repeated inside the files (Hive layout, as Trino and
 * Spark expect).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FleetsyncError } from '../errors.ts';

export const LAKE_FILE = 'data.parquet';

export interface LakeColumn {
  name: string;
  type: string;
}
export interface LakeTable {
  name: string;
  columns: LakeColumn[];
  /** The column whose month names the partition, or null (month=all). */
  monthColumn: string | null;
}

export const q = (id: string) => `"${id.replaceAll('"', '""')}"`;
export const lit = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** The account-keyed tables of a database, with their columns in order. */
export async function lakeTables(con: DuckDBConnection): Promise<LakeTable[]> {
  const rows = (
    await con.runAndReadAll(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'main' AND table_catalog = current_database()
       ORDER BY table_name, ordinal_position`,
    )
  ).getRowObjectsJS() as { table_name: string; column_name: string; data_type: string }[];
  const byTable = new Map<string, LakeColumn[]>();
  for (const r of rows) {
    const cols = byTable.get(r.table_name) ?? [];
    cols.push({ name: r.column_name, type: r.data_type });
    byTable.set(r.table_name, cols);
  }
  const out: LakeTable[] = [];
  for (const [name, columns] of byTable) {
    if (!columns.some((c) => c.name === 'account')) continue;
    const time = columns.find((c) => c.name !== 'account' && /^(DATE|TIMESTAMP)/.test(c.type));
    out.push({ name, columns, monthColumn: time?.name ?? null });
  }
  return out;
}

/** Fails with a clear error when the lake directory cannot be written. */
export function checkLakeDir(lakeDir: string, setting = 'FLEETSYNC_LAKE_DIR'): void {
  try {
    mkdirSync(lakeDir, { recursive: true });
    accessSync(lakeDir, constants.W_OK);
  } catch (cause) {
    throw new FleetsyncError(
      'E_CONFIG',
      `${setting}: the lake directory ${lakeDir} is not writable (${(cause as Error).message})`,
      { cause },
    );
  }
}

/** The partition month of a row, as SQL: UTC month of the time column, 'none' when it is null. */
function monthExpr(t: LakeTable): string {
  const col = t.columns.find((c) => c.name === t.monthColumn);
  if (!col) return `'all'`;
  const utc = col.type === 'TIMESTAMP WITH TIME ZONE' ? `timezone('UTC', ${q(col.name)})` : q(col.name);
  return `COALESCE(strftime(${utc}, '%Y-%m'), 'none')`;
}

export interface PublishResult {
  files: number;
  removed: number;
}

/** Writes every partition of `account` from the connection's database into the lake. */
export async function publishAccount(
  con: DuckDBConnection,
  account: string,
  lakeDir: string,
): Promise<PublishResult> {
  checkLakeDir(lakeDir);
  let files = 0;
  let removed = 0;
  for (const t of await lakeTables(con)) {
    const month = monthExpr(t);
    const months = (
      await con.runAndReadAll(
        `SELECT DISTINCT ${month} AS m FROM ${q(t.name)} WHERE account = $1 ORDER BY m`,
        [account],
      )
    ).getRowObjectsJS() as { m: string }[];
    const accountDir = join(lakeDir, t.name, `account=${account}`);
    const keep = new Set<string>();
    const cols = t.columns.filter((c) => c.name !== 'account').map((c) => q(c.name));
    for (const { m } of months) {
      const dir = join(accountDir, `month=${m}`);
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${randomUUID()}.parquet.tmp`);
      try {
        await con.run(
          `COPY (SELECT ${cols.join(', ')} FROM ${q(t.name)}
                 WHERE account = ${lit(account)} AND ${month} = ${lit(m)}
                 ORDER BY ALL)
           TO ${lit(tmp)} (FORMAT parquet, COMPRESSION snappy)`,
        );
        renameSync(tmp, join(dir, LAKE_FILE));
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
      keep.add(`month=${m}`);
      files++;
    }
    // Stale partitions: the new ones are in place, so removing these never leaves a gap.
    const present = existsSync(accountDir) ? readdirSync(accountDir) : [];
    for (const d of present) {
      if (keep.has(d) || !d.startsWith('month=')) continue;
      rmSync(join(accountDir, d, LAKE_FILE), { force: true });
      rmSync(join(accountDir, d), { recursive: true, force: true });
      removed++;
    }
  }
  return { files, removed };
}
