/**
 * Publishes one account's tables from its DuckDB file to a Hive-partitioned Parquet lake:
 *
 *   <lake>/<table>/account=<account>/month=<YYYY-MM>/data.parquet
 *
 * The month is the month (UTC) of the table's first date/time column; a table without one goes
 * to month=all. Each file is written by DuckDB under a hidden temporary name in its partition
 * directory and renamed over data.parquet, so a reader sees each partition whole, old or new.
 * A partition the account no longer has is removed after the new ones are in place, and so are
 * the account's partitions of a table the schema no longer has (dropped or renamed). A publish
 * writes only the partitions whose rows changed since the last one (`<lake>/_publish/<account>.json`
 * records what each partition holds; publishAccount below). The account
 * column is the partition key and is not repeated inside the files (Hive layout, as Trino and
 * Spark expect).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { FleetsyncError } from '../errors.ts';
import { writeWhole } from './outcomes.ts';

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

/** A table's columns in its files: all but `account`, the partition key (Hive layout). */
const dataColumns = (t: LakeTable) => t.columns.filter((c) => c.name !== 'account');

/** The partition month of a row, as SQL: UTC month of the time column, 'none' when it is null. */
function monthExpr(t: LakeTable): string {
  const col = t.columns.find((c) => c.name === t.monthColumn);
  if (!col) return `'all'`;
  const utc = col.type === 'TIMESTAMP WITH TIME ZONE' ? `timezone('UTC', ${q(col.name)})` : q(col.name);
  return `COALESCE(strftime(${utc}, '%Y-%m'), 'none')`;
}

/** What the lake holds of one month of a table: the rows' fingerprint and the file written for them. */
interface ManifestMonth {
  rows: number;
  /** sum(hash(row)) over the month's rows: any changed, added or deleted row changes it. */
  hash: string;
  ino: number;
  size: number;
  mtimeMs: number;
}
interface ManifestTable {
  /**
   * The table's columns ("name type", in order), its month rule and how its files are written
   * (PARQUET_WRITE): another schema, or a change to how a file is written, republishes every month.
   */
  columns: string;
  months: Record<string, ManifestMonth>;
}
/** `<lake>/_publish/<account>.json`: what the account's last publish wrote (written whole, last). */
interface Manifest {
  version: typeof MANIFEST_VERSION;
  account: string;
  tables: Record<string, ManifestTable>;
}
const MANIFEST_VERSION = 1;
/** How a partition's file is written (rows in order, the COPY's options): part of a table's shape. */
const PARQUET_WRITE = { order: 'ORDER BY ALL', options: 'FORMAT parquet, COMPRESSION snappy' };
export const MANIFEST_DIR = '_publish';
export const manifestFile = (lakeDir: string, account: string) =>
  join(lakeDir, MANIFEST_DIR, `${account}.json`);

/** The account's manifest, or null when it is missing, unreadable or of another version (a full publish). */
function readManifest(lakeDir: string, account: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(manifestFile(lakeDir, account), 'utf8')) as Manifest;
    return m?.version === MANIFEST_VERSION &&
      m.account === account &&
      m.tables &&
      typeof m.tables === 'object'
      ? m
      : null;
  } catch {
    return null;
  }
}

export interface PublishOptions {
  /** Rewrite every partition, whatever the manifest says (an operator's full republish). */
  full?: boolean;
  /** Called when a partition's file is written under its temporary name, before the rename. */
  onWritten?: (table: string, month: string) => void;
}

export interface PublishResult {
  /** Partitions written by this publish. */
  files: number;
  /** Partitions left as they were: their rows had not changed since the last publish. */
  kept: number;
  removed: number;
  /** Why every partition was rewritten (null: only the changed ones were). */
  full: 'asked' | 'no manifest' | null;
}

/**
 * Publishes the partitions of `account` whose rows differ from what the lake holds: each table's
 * rows are fingerprinted per month in one grouped scan (row count and the sum of the rows'
 * hashes) and compared with the account's manifest; a month is rewritten when its fingerprint
 * changed (rows added, changed or deleted, by a sync, late data, a re-zone or anything else), when
 * the table's columns changed, or when its file is not the one the manifest recorded (missing,
 * replaced). Without a readable manifest, or with `full`, every partition is rewritten. The
 * manifest is written last, whole: a publish killed part-way leaves each partition whole (old or
 * new) and an older manifest, so the next publish rewrites whatever the kill left behind.
 */
export async function publishAccount(
  con: DuckDBConnection,
  account: string,
  lakeDir: string,
  opts: PublishOptions = {},
): Promise<PublishResult> {
  checkLakeDir(lakeDir);
  const before = opts.full ? null : readManifest(lakeDir, account);
  const manifest: Manifest = { version: MANIFEST_VERSION, account, tables: {} };
  const result: PublishResult = {
    files: 0,
    kept: 0,
    removed: 0,
    full: opts.full ? 'asked' : before ? null : 'no manifest',
  };
  const tables = await lakeTables(con);
  const prints = await fingerprints(con, tables, account);
  for (const t of tables) {
    const month = monthExpr(t);
    const dataCols = dataColumns(t);
    const cols = dataCols.map((c) => q(c.name));
    const columns = [
      dataCols.map((c) => `${c.name} ${c.type}`).join(', '),
      `month ${month}`,
      `${PARQUET_WRITE.order} (${PARQUET_WRITE.options})`,
    ].join('; ');
    const months = prints.get(t.name) ?? [];
    const prior = before?.tables[t.name];
    const known = (prior?.columns === columns && prior.months) || {};
    const entry: ManifestTable = { columns, months: {} };
    manifest.tables[t.name] = entry;
    const accountDir = join(lakeDir, t.name, `account=${account}`);
    for (const { m, n, h } of months) {
      const dir = join(accountDir, `month=${m}`);
      const file = join(dir, LAKE_FILE);
      const was = known[m];
      const now = statOf(file);
      if (was && was.rows === n && was.hash === h && now && sameFile(was, now)) {
        entry.months[m] = was;
        result.kept++;
        continue;
      }
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${randomUUID()}${TMP_SUFFIX}`);
      try {
        await con.run(
          `COPY (SELECT ${cols.join(', ')} FROM ${q(t.name)}
                 WHERE account = ${lit(account)} AND ${month} = ${lit(m)}
                 ${PARQUET_WRITE.order})
           TO ${lit(tmp)} (${PARQUET_WRITE.options})`,
        );
        opts.onWritten?.(t.name, m);
        renameSync(tmp, file);
      } catch (e) {
        rmSync(tmp, { force: true });
        throw e;
      }
      entry.months[m] = { rows: n, hash: h, ...statOf(file)! };
      result.files++;
    }
    // Stale partitions (the new ones are in place, so removing these never leaves a gap), and the
    // temporary files of a publish that was killed part-way.
    const present = existsSync(accountDir) ? readdirSync(accountDir) : [];
    for (const d of present) {
      if (!d.startsWith('month=')) continue;
      if (!(d.slice('month='.length) in entry.months)) {
        rmSync(join(accountDir, d, LAKE_FILE), { force: true });
        rmSync(join(accountDir, d), { recursive: true, force: true });
        result.removed++;
        continue;
      }
      for (const f of readdirSync(join(accountDir, d)))
        if (f.endsWith(TMP_SUFFIX)) rmSync(join(accountDir, d, f), { force: true });
    }
  }
  mkdirSync(join(lakeDir, MANIFEST_DIR), { recursive: true });
  result.removed += removeGoneTables(lakeDir, account, new Set(tables.map((t) => t.name)));
  writeWhole(manifestFile(lakeDir, account), manifest);
  return result;
}

/**
 * The account's partitions of every table the schema no longer has (a migration dropped or
 * renamed it): without this a reader of the lake sees the old table's files beside the current
 * ones for ever. `<lake>/<table>/account=<account>` is moved aside whole in one rename (into
 * `_publish/`, which no reader lists), so a reader sees the account's files of it all or none,
 * then deleted; the table's directory goes when no account is left in it. Only what a publish
 * writes is touched: the lake's own directories (`_publish`, `_jobs`: `_` or `.` first) and a
 * directory without this account's partitions stay. Returns the partitions removed.
 */
function removeGoneTables(lakeDir: string, account: string, current: ReadonlySet<string>): number {
  let removed = 0;
  // what a publish killed between its rename and its delete left aside (no reader lists it)
  for (const f of readdirSync(join(lakeDir, MANIFEST_DIR)))
    if (f.endsWith('.removed')) rmSync(join(lakeDir, MANIFEST_DIR, f), { recursive: true, force: true });
  for (const e of readdirSync(lakeDir, { withFileTypes: true })) {
    if (!e.isDirectory() || /^[_.]/.test(e.name) || current.has(e.name)) continue;
    const tableDir = join(lakeDir, e.name);
    const dir = join(tableDir, `account=${account}`);
    if (!existsSync(dir)) continue;
    const months = readdirSync(dir).filter((d) => d.startsWith('month=')).length;
    const aside = join(lakeDir, MANIFEST_DIR, `.${randomUUID()}.removed`);
    renameSync(dir, aside);
    rmSync(aside, { recursive: true, force: true });
    removed += months;
    try {
      rmdirSync(tableDir);
    } catch (err) {
      // another account's partitions of it are still there: its own publish removes them
      if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw err;
    }
  }
  return removed;
}

const TMP_SUFFIX = '.parquet.tmp';

interface Fingerprint {
  m: string;
  n: number;
  h: string;
}

/**
 * Each table's months with their row count and sum(hash(row)), in one statement (one grouped
 * scan a table; a statement a table cost more in its overhead than in its scan at 2 years).
 */
async function fingerprints(
  con: DuckDBConnection,
  tables: LakeTable[],
  account: string,
): Promise<Map<string, Fingerprint[]>> {
  const out = new Map<string, Fingerprint[]>();
  if (!tables.length) return out;
  const parts = tables.map((t) => {
    const cols = dataColumns(t).map((c) => q(c.name));
    // HAVING: a table without a month column has the constant month 'all', which GROUP BY ALL
    // leaves out, so its aggregate answers one row (count 0) even for an account with no rows
    return `SELECT ${lit(t.name)} AS t, ${monthExpr(t)} AS m, count(*)::INTEGER AS n,
              sum(hash(${cols.join(', ')}))::VARCHAR AS h
            FROM ${q(t.name)} WHERE account = $1 GROUP BY ALL HAVING count(*) > 0`;
  });
  const rows = (
    await con.runAndReadAll(`${parts.join('\nUNION ALL\n')}\nORDER BY t, m`, [account])
  ).getRowObjectsJS() as unknown as (Fingerprint & { t: string })[];
  for (const { t, m, n, h } of rows) {
    const list = out.get(t) ?? [];
    list.push({ m, n, h });
    out.set(t, list);
  }
  return out;
}

function statOf(file: string): Pick<ManifestMonth, 'ino' | 'size' | 'mtimeMs'> | null {
  try {
    const s = statSync(file);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return null;
  }
}

const sameFile = (a: Pick<ManifestMonth, 'ino' | 'size' | 'mtimeMs'>, b: typeof a) =>
  a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
