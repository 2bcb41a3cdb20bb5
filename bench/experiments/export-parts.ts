/**
 * Where a trips CSV export's CPU goes, in process on a seeded database: the export's own COPY (the
 * streamed query, spreadsheet guard and all) against variants with one part taken out, the whole
 * `exportReport` and the bench's bare COPY of the same rows, rounds alternating, wall and CPU
 * (process.cpuUsage: DuckDB's threads included) per run.
 * `node --import tsx bench/experiments/export-parts.ts <db.duckdb> [rounds] [variant,variant] [rows]`
 * Variants: export (exportReport, the manifest included), copy (its COPY alone), bare (the bench's
 * reference), and the copy without the guard (noguard), the local times (notime), the lookups
 * (nolookup; nov, nod: the vehicle's, the driver's), the offsets (nooff), the km doubles (nodbl):
 * bounds, not the export's bytes; oldcols: the export's COPY without the 14 columns of the API's trip
 * fields (5b7ac18), the width it had before them; bareold: the bare COPY of the table's 12 columns before them.
 * Parquet: export_pq (exportReport to Parquet), pq (its COPY alone), pq_unc, pq_lz4, pq_zstd1, pq_rg,
 * pq_v2, pq_nodict (the same COPY with other writer options; PQ_<name>=options adds one, PQ_SQL=a
 * statement replaces the report's). THREADS=n: DuckDB's threads. PROFILE=1: DuckDB's JSON profile of
 * each COPY, its slowest operators listed (TOP=n of them, INFO=n characters of each one's details).
 * OUT=dir keeps the last export's file there (to compare bytes). Give it a copy of the seed.
 */
import { readFileSync, readdirSync, rmSync, statSync, copyFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { csvSelect, exportReport, inStoredOrder } from '../../src/reports/export.ts';
import { prepareBound, prepareLookups } from '../../src/reports/run.ts';
import { tripsExportSetup } from './trips-export-setup.ts';
import { ACCOUNT } from '../seed.ts';

const [dbPath = '', roundsArg = '3', variantsArg = 'export,copy,bare', rowsArg = '1000000'] =
  process.argv.slice(2);
const { db, con, dir, zone, from, to, def, scope, params, values, query } = await tripsExportSetup(
  dbPath,
  Number(rowsArg),
  'fleetsync-bench-exp-',
);
await prepareLookups(con, query, values);
const { sql, streamed } = await inStoredOrder(con, query, values);
const copySelect = csvSelect(def, sql);
console.log(
  `range ${from}…${to}, streamed ${streamed}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

/** The trips report's columns added with the API's trip fields (5b7ac18, migration 042). */
const NEW_TRIP_COLUMNS = new Set([
  'trip_type',
  'is_private',
  'trip_title',
  'trip_extra_notes',
  'harsh_braking_events',
  'harsh_acceleration_events',
  'harsh_cornering_events',
  'road_speeding_events',
  'road_speeding_duration_seconds',
  'thresholds_speeding_events',
  'thresholds_speeding_duration_seconds',
  'max_speed',
  'start_geofence_name',
  'end_geofence_name',
]);

/** The statement without the vehicles' lookups (registration as the trip has it, no department). */
const noVehicle = (x: string) =>
  x
    .replace(
      /coalesce\((?:getvariable\('trip_lookups'\)|t\.lk)\.registration\[t\.v\], t\.registration\)/,
      't.registration',
    )
    .replace(/(?:getvariable\('trip_lookups'\)|t\.lk)\.department\[t\.v\]/g, 'NULL')
    .replace(/trip_(key\('v' \|\| vehicle_id\)|vehicle\(vehicle_id\)) AS v/, '0 AS v');
/** … and without the driver's name. */
const noDriver = (x: string) =>
  x
    .replace(/(?:getvariable\('trip_lookups'\)|t\.lk)\.driver_name\[t\.d\]/, 'NULL')
    .replace(/trip_key\('d' \|\| driver_id\) AS d/, '0 AS d');
const variantSql: Record<string, string> = {
  copy: copySelect,
  noguard: copySelect.replace(/xl_text\((r\.[^)]*)\)/g, '$1'),
  notime: csvSelect(
    def,
    sql
      .replace(/iso_local_at\(s\.(\w+), s\.\w+\)/g, 's.$1::VARCHAR')
      .replace(/trip_iso_local\(s\.(\w+), s\.\w+, s\.\w+\)/g, 's.$1::VARCHAR')
      .replace(/strftime\(local_at\(s\.start_time, s\.start_off\), '%Y-%m-%d'\)/, 'NULL')
      .replace(/strftime\(make_timestamp\(epoch_us\(s\.start_time\)\), '%Y-%m-%d'\)/, 'NULL'),
  ),
  nolookup: csvSelect(def, noDriver(noVehicle(sql))),
  nov: csvSelect(def, noVehicle(sql)),
  nod: csvSelect(def, noDriver(sql)),
  nooff: csvSelect(def, sql.replace(/trip_offset\((t\.lk, )?t\.(\w+), (t\.\w+, )?\$zone\)/g, '36000')),
  nodbl: csvSelect(def, sql.replace(/round\(s\.(\w+) \/ 1000\.0, 3\)::DOUBLE/g, 's.$1')),
  // the export as it was before the API's trip fields (5b7ac18): the 14 columns it added left out
  oldcols: csvSelect({ ...def, columns: def.columns.filter((c) => !NEW_TRIP_COLUMNS.has(c.name)) }, sql),
  bare: `SELECT * FROM trips WHERE account = '${ACCOUNT}'
           AND start_time >= timezone('${zone}', TIMESTAMP '${from} 00:00:00')
           AND start_time < timezone('${zone}', TIMESTAMP '${to} 00:00:00' + INTERVAL 1 DAY)`,
  // the bare COPY of the trips table's 12 columns before migration 042
  bareold: `SELECT account, trip_id, vehicle_id, registration, start_time, end_time, trip_distance_m,
             start_odometer_m, end_odometer_m, driver_id, start_location, end_location
           FROM trips WHERE account = '${ACCOUNT}'
           AND start_time >= timezone('${zone}', TIMESTAMP '${from} 00:00:00')
           AND start_time < timezone('${zone}', TIMESTAMP '${to} 00:00:00' + INTERVAL 1 DAY)`,
};
for (const [k, v] of Object.entries(process.env))
  if (k.startsWith('VARIANT_') && v) variantSql[k.slice(8).toLowerCase()] = v;

interface ProfileNode {
  operator_name?: string;
  operator_timing?: number;
  extra_info?: Record<string, unknown>;
  children?: ProfileNode[];
}
const flatten = (n: ProfileNode, out: ProfileNode[] = []) => {
  out.push(n);
  for (const c of n.children ?? []) flatten(c, out);
  return out;
};

/** Parquet variants: the export's Parquet COPY (its statement as it is) with these options. */
const parquetOptions: Record<string, string> = {
  pq: 'FORMAT parquet',
  pq_unc: 'FORMAT parquet, COMPRESSION uncompressed',
  pq_lz4: 'FORMAT parquet, COMPRESSION lz4_raw',
  pq_zstd1: 'FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1',
  pq_rg: 'FORMAT parquet, ROW_GROUP_SIZE 1000000',
  pq_v2: 'FORMAT parquet, PARQUET_VERSION v2',
  pq_nodict: 'FORMAT parquet, STRING_DICTIONARY_PAGE_SIZE_LIMIT 1',
};
for (const [k, v] of Object.entries(process.env))
  if (k.startsWith('PQ_') && v) parquetOptions[k.toLowerCase()] = v;

async function copyOnce(name: string, out: string): Promise<number> {
  const pq = parquetOptions[name];
  const select = pq ? (process.env.PQ_SQL ?? sql).trim().replace(/;\s*$/, '') : variantSql[name];
  if (!select) throw new Error(`no variant ${name}`);
  const ps = await prepareBound(
    con,
    `COPY (\n${select}\n) TO '${out}' (${pq ?? 'FORMAT csv, HEADER true'})`,
    values,
  );
  return Number((await ps.runAndReadAll()).getRowObjectsJS()[0]?.Count ?? 0);
}

const variants = variantsArg.split(',');
const times: Record<string, { ms: number; cpu: number }[]> = {};
for (let round = 0; round < Number(roundsArg); round++) {
  for (const name of variants) {
    const out = join(dir, `${name}-${round}.csv`);
    const profile = process.env.PROFILE === '1' && name !== 'export';
    const prof = join(dir, `${name}-${round}.json`);
    if (profile) await con.run(`PRAGMA enable_profiling = 'json'; PRAGMA profiling_output = '${prof}'`);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const rows =
      name === 'export' || name === 'export_pq'
        ? (await exportReport(con, def, scope, params, name === 'export' ? 'csv' : 'parquet', out)).rows
        : await copyOnce(name, out);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (profile) await con.run(`PRAGMA disable_profiling`);
    const cpu = (c.user + c.system) / 1000;
    (times[name] ??= []).push({ ms, cpu });
    const bytes = statSync(out).size;
    console.log(
      `${round} ${name.padEnd(10)} rows ${rows} ${(bytes / 1e6).toFixed(1)} MB wall ${(ms / 1000).toFixed(2)} s cpu ${(cpu / 1000).toFixed(2)} s load ${loadavg()[0]!.toFixed(2)}`,
    );
    if (profile) {
      const p = JSON.parse(readFileSync(prof, 'utf8')) as ProfileNode;
      const ops = flatten(p)
        .filter((n) => n.operator_name)
        .sort((a, b) => (b.operator_timing ?? 0) - (a.operator_timing ?? 0))
        .slice(0, Number(process.env.TOP ?? 6));
      for (const o of ops)
        console.log(
          `    ${String(o.operator_name).padEnd(20)} ${(o.operator_timing ?? 0).toFixed(3)} s ${JSON.stringify(o.extra_info ?? {}).slice(0, Number(process.env.INFO ?? 160))}`,
        );
    }
    if (process.env.OUT && round === Number(roundsArg) - 1)
      copyFileSync(out, join(process.env.OUT, `${name}.csv`));
    for (const f of readdirSync(dir))
      if (f.startsWith(`${name}-${round}.csv`)) rmSync(join(dir, f), { force: true });
  }
}
for (const [name, ts] of Object.entries(times)) {
  const cpus = ts.map((t) => t.cpu / 1000);
  console.log(
    `${name.padEnd(10)} cpu ${cpus.map((x) => x.toFixed(2)).join(' ')} (least ${Math.min(...cpus).toFixed(2)}), wall ${ts.map((t) => (t.ms / 1000).toFixed(2)).join(' ')}`,
  );
}
con.closeSync();
db.close();
rmSync(dir, { recursive: true, force: true });
