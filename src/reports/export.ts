/**
 * Report files: XLSX by ./xlsx.ts (exceljs); CSV and Parquet written by DuckDB `COPY (<the report's named query>) TO '<temp>'`
 * (the temp name is generated here, never taken from input), Arrow IPC through apache-arrow; each
 * then renamed onto the target, so a file appears whole or not at all. CSV: UTF-8 with a BOM,
 * header row, blank = unknown (NULL), text cells neutralised for spreadsheets (xl_text), numbers
 * untouched. A `<file>.manifest.json` sidecar states generation time, zone, run, "complete
 * through", the totals with the unknown (blank) rows per totalled column (`totals_blank`; a column
 * with any is listed in `totals_partial`) and the file's SHA-256 and size, and is moved into place before the file (see
 * exportReport), so a reader can always tell whether the pair belongs together (verifyExport).
 * apache-arrow and exceljs are imported only by their formats: loading them was 2/3 of the start of
 * a `fleetsync export` to CSV or Parquet (~0.6 of ~0.9 CPU-s).
 */
import { DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, dirname, join } from 'node:path';
import { FleetsyncError } from '../errors.ts';
import { prepareModelConnection } from '../store/models.ts';
import { loadSql } from '../store/queries.ts';
import { rangeNote, type ReportParams } from './params.ts';
import { humanHeader, presentation } from './columns.ts';
import { queryName, type ReportDef } from './registry.ts';
import { logbookPreamble } from './logbook.ts';
import {
  bindings,
  prepareBound,
  prepareLookups,
  pageTotals,
  reportMeta,
  toJsonCell,
  totalsReadStatement,
  type MetaCache,
  type ReportMeta,
  type ReportScope,
} from './run.ts';

export type ExportFormat = 'csv' | 'parquet' | 'arrow' | 'xlsx';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'parquet', 'arrow', 'xlsx'];

export interface ExportResult {
  path: string;
  rows: number;
  format: ExportFormat;
  meta: ReportMeta;
}

const BOM = '\uFEFF';
const COPY_CHUNK = 4 << 20;
const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const stripStatement = (sql: string) => sql.trim().replace(/;\s*$/, '');
const tempBeside = (out: string, ext: string) =>
  join(dirname(out), `.${basename(out)}.${randomUUID()}.tmp.${ext}`);

/** A temp file untouched this long belongs to an export that was killed (a live one keeps writing). */
export const STALE_TEMP_MS = 15 * 60_000;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Removes the hidden temp files a killed export of `out` (or of its manifest) left beside it.
 * Only names this module makes, and only when untouched for STALE_TEMP_MS, so an export of the
 * same file running in another process keeps its temp. Never fails the export.
 */
export async function sweepStaleTemps(out: string, nowMs = Date.now()): Promise<string[]> {
  const dir = dirname(out);
  const escape = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const mine = new RegExp(`^\\.${escape(basename(out))}(\\.manifest\\.json)?\\.${UUID}\\.tmp\\.[a-z]+$`);
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!mine.test(name)) continue;
    const p = join(dir, name);
    try {
      if (nowMs - (await stat(p)).mtimeMs < STALE_TEMP_MS) continue;
      await rm(p, { force: true });
      removed.push(p);
    } catch {
      // gone already, or not ours to remove: leave it
    }
  }
  return removed;
}

/**
 * The report query wrapped so text columns become spreadsheet-safe (CSV only). Numbers and the
 * ISO times/days/months the queries format themselves (always starting with a digit) need no
 * neutralising, which saves a per-cell check on every such column.
 */
export function csvSelect(def: ReportDef, sql: string, headers: HeaderStyle = 'machine', bom = true): string {
  const name = (c: ReportDef['columns'][number]) =>
    headers === 'human' ? humanHeader(presentation(def.name, c), true) : c.name;
  const first = def.columns[0] ? name(def.columns[0]) : '';
  // The BOM travels as the first character of the first column's name, so the file comes out of
  // COPY whole and is never copied again (a second pass over a 1M-row file cost about as much as
  // the COPY). DuckDB writes a plain name bare; one it would quote (a quote, a comma, a line
  // break) would put the BOM inside the quotes, so such a name is refused rather than written wrong.
  if (bom && !/^[^",\r\n]+$/.test(first))
    throw new FleetsyncError(
      'E_EXPORT',
      `report ${def.name}: first column ${JSON.stringify(first)} cannot carry the BOM`,
    );
  const cols = def.columns.map((c, i) => {
    const value = c.kind !== 'text' ? `r.${ident(c.name)}` : `xl_text(r.${ident(c.name)})`;
    return `${value} AS ${ident(i === 0 && bom ? BOM + name(c) : name(c))}`;
  });
  return `SELECT ${cols.join(', ')} FROM (\n${stripStatement(sql)}\n) AS r`;
}

async function copyTo(
  con: DuckDBConnection,
  select: string,
  path: string,
  options: string,
  values: ReturnType<typeof bindings>,
): Promise<number> {
  const ps = await prepareBound(con, `COPY (\n${select}\n) TO ${sqlString(path)} (${options})`, values);
  const r = (await ps.runAndReadAll()).getRowObjectsJS()[0];
  return Number(r?.Count ?? 0);
}

async function writeArrow(
  con: DuckDBConnection,
  sql: string,
  values: ReturnType<typeof bindings>,
  path: string,
) {
  const ps = await prepareBound(con, sql, values);
  const reader = await ps.runAndReadAll();
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const cols = reader.getColumnsJS();
  const arrays: Record<string, unknown[] | Float64Array> = {};
  names.forEach((n, i) => {
    const values = (cols[i] ?? []).map(toJsonCell);
    const t = types[i]?.typeId;
    const numeric = t === DuckDBTypeId.DOUBLE || t === DuckDBTypeId.INTEGER || t === DuckDBTypeId.BIGINT;
    arrays[n] = numeric && values.every((v) => v !== null) ? Float64Array.from(values as number[]) : values;
  });
  const { tableFromArrays, tableToIPC } = await import('apache-arrow');
  const table = tableFromArrays(arrays as Parameters<typeof tableFromArrays>[0]);
  await writeFile(path, tableToIPC(table, 'file'));
  return reader.currentRowCount;
}

/** A report's sort marked as the table's stored order (trips.sql): the comment line and the ORDER BY. */
const STORED_ORDER_SORT = /\n[ \t]*-- stored order:[^\n]*\n[ \t]*ORDER BY [^\n]*\n/;

/**
 * The report's statement as an export runs it: without its sort when the sort is marked as the
 * stored order and the range's rows are stored in it (queries/reports/lookups/trips_stored_order.sql),
 * so the rows stream from the scan in the order the sort would give (every value in the
 * statement is a scalar lookup, no join, so the scan's order is kept). Else as it is.
 */
export async function inStoredOrder(
  con: DuckDBConnection,
  sql: string,
  values: ReturnType<typeof bindings>,
): Promise<{ sql: string; streamed: boolean }> {
  if (!STORED_ORDER_SORT.test(sql)) return { sql, streamed: false };
  const ps = await prepareBound(con, loadSql('reports/lookups/trips_stored_order'), values);
  const stored = (await ps.runAndReadAll()).getRowObjectsJS()[0]?.stored_order === true;
  return stored ? { sql: sql.replace(STORED_ORDER_SORT, '\n'), streamed: true } : { sql, streamed: false };
}

/** SHA-256 (hex) and size of a file, streamed. */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: COPY_CHUNK })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** How long the digest of a file being written waits for more bytes before it reads again. */
const FOLLOW_WAIT_MS = 2;

/**
 * SHA-256 (hex) and size of a file while another writer (DuckDB's COPY) writes it, appending
 * only: the bytes are hashed as they land, on this thread, while DuckDB formats the rest on its
 * own, instead of read back once the COPY is done (issue 29: 0.27–0.35 s per 1 M trips after the
 * COPY). Call `finished()` once the writer is done (the rest is read to the end then) or
 * `abandon()` when it failed. A file rewritten in place would break the hash: only for writers
 * that append (COPY to CSV or Parquet); test/reports/export-digest.test.ts compares it with the
 * digest of the file read back.
 */
export function followDigest(path: string): {
  digest: Promise<{ sha256: string; bytes: number }>;
  finished(): void;
  abandon(): void;
} {
  const writer: { state: 'writing' | 'done' | 'abandoned' } = { state: 'writing' };
  const digest = (async () => {
    const hash = createHash('sha256');
    const buf = Buffer.allocUnsafe(COPY_CHUNK);
    let bytes = 0;
    let fh: Awaited<ReturnType<typeof open>> | null = null;
    try {
      while (!fh) {
        // the writer creates the file when it starts
        const last = writer.state !== 'writing';
        try {
          fh = await open(path, 'r');
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || last) throw e;
          await sleep(FOLLOW_WAIT_MS);
        }
      }
      for (;;) {
        if (writer.state === 'abandoned') throw new Error(`the writer of ${path} failed`);
        const last = writer.state === 'done'; // read before the read: bytes written before 'done' are all seen
        const { bytesRead } = await fh.read(buf, 0, buf.length, bytes);
        if (bytesRead > 0) {
          hash.update(buf.subarray(0, bytesRead));
          bytes += bytesRead;
        } else if (last) break;
        else await sleep(FOLLOW_WAIT_MS);
      }
      return { sha256: hash.digest('hex'), bytes };
    } finally {
      await fh?.close();
    }
  })();
  digest.catch(() => {}); // the caller awaits it after its writer; an abandoned one is not awaited
  return {
    digest,
    finished: () => {
      writer.state = 'done';
    },
    abandon: () => {
      writer.state = 'abandoned';
    },
  };
}

export const manifestPath = (outPath: string) => `${outPath}.manifest.json`;

/**
 * Whether a report file and its `.manifest.json` describe the same export: the manifest's
 * `sha256` and `bytes` are those of the file. A kill between the two renames of an export leaves
 * the new manifest beside the previous file; this says so (run the export again).
 */
export async function verifyExport(outPath: string): Promise<{ ok: boolean; reason: string }> {
  let manifest: { sha256?: unknown; bytes?: unknown; file?: unknown };
  try {
    manifest = JSON.parse(await readFile(manifestPath(outPath), 'utf8')) as typeof manifest;
  } catch (e) {
    return { ok: false, reason: `no readable manifest ${manifestPath(outPath)}: ${(e as Error).message}` };
  }
  if (typeof manifest.sha256 !== 'string') return { ok: false, reason: 'the manifest has no sha256' };
  let actual: { sha256: string; bytes: number };
  try {
    actual = await fileDigest(outPath);
  } catch (e) {
    return { ok: false, reason: `no readable file ${outPath}: ${(e as Error).message}` };
  }
  if (actual.sha256 !== manifest.sha256 || actual.bytes !== manifest.bytes)
    return {
      ok: false,
      reason: `${basename(outPath)} is not the file its manifest describes (sha256 ${actual.sha256}, manifest ${manifest.sha256}): the export was interrupted; run it again`,
    };
  return { ok: true, reason: `${basename(outPath)} matches its manifest (sha256 ${actual.sha256})` };
}

/** CSV header row: the stable column names (default; integrations depend on them) or labels with units. */
export type HeaderStyle = 'machine' | 'human';
export const HEADER_STYLES: readonly HeaderStyle[] = ['machine', 'human'];

export interface ExportOptions {
  /** CSV only: 'human' writes "Distance (km)" instead of `distance_km`. */
  headers?: HeaderStyle;
  /** false: no sidecar (the server sends the same facts as headers). */
  manifest?: boolean;
  metaCache?: MetaCache;
  /** fs.rename; a test injects a failure between the manifest's and the file's rename. */
  rename?: (from: string, to: string) => Promise<void>;
  /**
   * A second connection to the same database: a CSV or Parquet export reads its stored-order check,
   * meta and totals on it while the main connection makes the lookups and runs the COPY (a COPY of
   * the trips runs on one DuckDB thread, so a core is free), instead of before and after the COPY
   * (issue 29: ~0.1 s per 1 M trips off the wall time). Only where nothing writes the database
   * between two statements (`fleetsync export`, the bench): serve's sync may commit between them.
   */
  side?: DuckDBConnection;
  /**
   * true where the export has the database instance to itself while it runs (`fleetsync export`,
   * the bench: no other call, sync or export): a streamed COPY then runs with DuckDB's threads at 1
   * (onOneThread), a setting of the whole instance. Without it (serve: other calls run beside) the
   * COPY runs at the instance's threads.
   */
  ownsInstance?: boolean;
}

/**
 * Runs `work` (a streamed export's COPY) with DuckDB's threads set to 1, then sets them back: a
 * global setting of the instance, so only where the export has the instance to itself
 * (ExportOptions.ownsInstance). DuckDB runs an insertion-ordered COPY of N columns on at most
 * 1 + (a quarter of the pool ÷ (4 MB × N)) threads (its batch copy's memory rule): the trips'
 * 30 columns at the 256 MB pool get one. A second thread adds nothing to it but costs: DuckDB's
 * worker runs the pipeline while the calling thread waits for it by spinning (a whole core, at
 * random, in about half the runs), and DuckDB plans the batch copy (every row group's rows copied
 * into a buffer, then formatted) instead of formatting each chunk straight to the file as it does
 * at one thread: ~30 % more CPU and twice the CLI's peak RSS (issue 29, docs/performance-log.md
 * "Session 15 (`exp3`)"; bench/experiments/export-threads.ts shows each thread's CPU). The side
 * connection's statements still run beside it, each on its own calling thread.
 */
async function onOneThread<T>(con: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  const r = await con.runAndReadAll(`SELECT current_setting('threads')::INTEGER AS n`);
  const threads = Number(r.getRowObjectsJS()[0]?.n ?? 1);
  if (threads <= 1) return work();
  await con.run('SET threads = 1');
  try {
    return await work();
  } finally {
    await con.run(`SET threads = ${threads}`);
  }
}

/**
 * What the manifest states besides the file: the meta (`known`: read already, the XLSX's) and the
 * totals, null for a report without totals.
 */
async function manifestFacts(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  sql: string,
  values: ReturnType<typeof bindings>,
  cache: MetaCache | undefined,
  known?: ReportMeta,
) {
  const meta = known ?? (await reportMeta(con, scope, cache));
  // the totals of the columns a total means something for, and per column the rows with no
  // value: a total with unknown rows covers only the others (partial), as the API's totals say
  const sums = def.columns.some((c) => c.total) ? await pageTotals(con, def, sql, values) : null;
  return { meta, sums };
}

/**
 * Writes one report to `outPath` in `format`, atomically, plus `<outPath>.manifest.json`, which
 * carries the file's SHA-256 and size. Order: the data under a temp name, its digest, the
 * manifest renamed into place, then the data renamed into place. So after a kill at any moment
 * the file under its final name is whole (the previous export's or this one's), a file is never
 * there without a manifest of its own, and the one window in which the manifest is already new
 * and the file still old is caught by comparing the hash (verifyExport, `sha256sum -c`).
 */
export async function exportReport(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
  format: ExportFormat,
  outPath: string,
  opts: ExportOptions = {},
): Promise<ExportResult> {
  const move = opts.rename ?? rename;
  await prepareModelConnection(con);
  await sweepStaleTemps(outPath);
  const values = bindings(scope, params);
  const query = loadSql(queryName(def));
  const copies = format === 'csv' || format === 'parquet';
  // the side connection's work (opts.side): the stored-order check, then the manifest's facts
  const side = opts.side && copies ? opts.side : null;
  const sideOrder = side
    ? (async () => {
        await prepareModelConnection(side);
        return inStoredOrder(side, query, values);
      })()
    : null;
  sideOrder?.catch(() => {}); // awaited below, after the lookups
  const sideFacts =
    side && sideOrder && opts.manifest !== false
      ? (async () => {
          const { sql } = await sideOrder;
          if (totalsReadStatement(def, sql, values)) await prepareLookups(side, query, values);
          return manifestFacts(side, def, scope, sql, values, opts.metaCache);
        })()
      : null;
  sideFacts?.catch(() => {}); // awaited after the COPY; a failure of the COPY first must not leave it unhandled
  let sql: string;
  let streamed: boolean;
  try {
    await prepareLookups(con, query, values);
    ({ sql, streamed } = await (sideOrder ?? inStoredOrder(con, query, values)));
  } catch (e) {
    await (sideFacts ?? sideOrder)?.catch(() => {}); // the side connection idle before the caller may close it
    throw e;
  }
  const tmp = tempBeside(outPath, format);
  const mtmp = tempBeside(manifestPath(outPath), 'json');
  let rows: number;
  let meta: ReportMeta | undefined;
  // COPY appends to its file: its digest is taken while it writes (followDigest)
  const following = opts.manifest !== false && copies ? followDigest(tmp) : null;
  try {
    if (copies) {
      const [select, options] =
        format === 'csv'
          ? [csvSelect(def, sql, opts.headers), 'FORMAT csv, HEADER true']
          : [stripStatement(sql), 'FORMAT parquet'];
      const copy = () => copyTo(con, select, tmp, options, values);
      // a streamed COPY is one pipeline that DuckDB runs on one thread at the 256 MB pool anyway
      // (onOneThread); with the instance to itself the export says so to DuckDB
      rows = await (opts.ownsInstance && streamed ? onOneThread(con, copy) : copy());
    } else if (format === 'xlsx') {
      // the About sheet states the sidecar facts, so they come first
      meta = await reportMeta(con, scope, opts.metaCache);
      const { writeXlsx } = await import('./xlsx.ts');
      rows = await writeXlsx(con, def, csvSelect(def, sql, 'machine', false), values, tmp, {
        scope,
        params,
        meta,
        ...(def.name === 'logbook' ? { preamble: await logbookPreamble(con, scope, params) } : {}),
      });
    } else {
      rows = await writeArrow(con, sql, values, tmp);
    }
    following?.finished();
    // Else the file's digest is read (this thread) while DuckDB answers the meta and the totals
    // (its threads): 0.35-0.47 s of SHA-256 per 1 M trips no longer comes after them.
    const digest = following ? following.digest : opts.manifest !== false ? fileDigest(tmp) : null;
    digest?.catch(() => {}); // awaited below; a failure of the queries first must not leave it unhandled
    if (digest) {
      const facts = await (sideFacts ?? manifestFacts(con, def, scope, sql, values, opts.metaCache, meta));
      meta ??= facts.meta;
      const sums = facts.sums;
      const manifest = {
        report: def.name,
        file: basename(outPath),
        format,
        rows,
        ...(await digest),
        from: params.fromDay,
        to: params.toDay,
        vehicle: params.vehicle,
        department: params.department,
        ...meta,
        range_note: rangeNote(params, scope, meta.complete_through_text),
        columns: def.columns.map((c) => c.name),
        ...(sums
          ? {
              totals: sums.totals,
              totals_blank: sums.totals_blank,
              totals_partial: Object.keys(sums.totals_blank).filter((c) => sums.totals_blank[c]! > 0),
            }
          : {}),
        ...(opts.headers === 'human' && format === 'csv' ? { headers: 'human' } : {}),
      };
      await writeFile(mtmp, JSON.stringify(manifest, null, 2) + '\n');
      await move(mtmp, manifestPath(outPath));
    }
    meta ??= await reportMeta(con, scope, opts.metaCache);
    await move(tmp, outPath);
  } catch (cause) {
    following?.abandon();
    await following?.digest.catch(() => {});
    await sideFacts?.catch(() => {});
    await rm(tmp, { force: true });
    await rm(mtmp, { force: true });
    throw cause instanceof FleetsyncError
      ? cause
      : new FleetsyncError(
          'E_EXPORT',
          `cannot write the ${def.name} report to ${outPath}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { cause },
        );
  }
  return { path: outPath, rows, format, meta };
}
