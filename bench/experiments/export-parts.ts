/**
 * Where a trips CSV export's CPU goes, in process on a seeded database: the export's own COPY (the
 * streamed query, spreadsheet guard and all) against variants with one part taken out, the whole
 * `exportReport` and the bench's bare COPY of the same rows, rounds alternating, wall and CPU
 * (process.cpuUsage: DuckDB's threads included) per run.
 * `node --import tsx bench/experiments/export-parts.ts <db.duckdb> [rounds] [variant,variant] [rows]`
 * Variants: export (exportReport, the manifest included), copy (its COPY alone), bare (the bench's
 * reference), and the copy without the guard (noguard), the local times (notime), the lookups
 * (nolookup). PROFILE=1: DuckDB's JSON profile of each COPY, its slowest operators listed.
 * OUT=dir keeps the last export's file there (to compare bytes). Give it a copy of the seed.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, copyFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvSelect, exportReport, inStoredOrder } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { getReport, queryName } from '../../src/reports/registry.ts';
import { bindings, prepareBound, prepareLookups } from '../../src/reports/run.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { loadSql } from '../../src/store/queries.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ACCOUNT } from '../seed.ts';

const [dbPath = '', roundsArg = '3', variantsArg = 'export,copy,bare', rowsArg = '1000000'] =
  process.argv.slice(2);
const sidecar = JSON.parse(readFileSync(`${dbPath}.json`, 'utf8')) as { nowMs: number; timezone: string };

const db = await openDatabase(dbPath);
const con = await db.connect();
if (process.env.THREADS) await con.run(`SET threads = ${Number(process.env.THREADS)}`);
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-exp-'));
const zone = sidecar.timezone;
const r = await con.runAndReadAll(
  `WITH d AS (SELECT (start_time AT TIME ZONE $zone)::DATE AS day, count(*) AS n FROM trips WHERE account = $account GROUP BY 1),
        c AS (SELECT day, sum(n) OVER (ORDER BY day DESC) AS cum FROM d)
   SELECT strftime(coalesce(max(day) FILTER (WHERE cum >= $target), min(day)), '%Y-%m-%d') AS from_day,
          strftime((SELECT max(day) FROM d), '%Y-%m-%d') AS to_day FROM c`,
  { zone, account: ACCOUNT, target: Number(rowsArg) },
);
const row = r.getRowObjectsJS()[0]!;
const from = String(row.from_day);
const to = String(row.to_day);
const def = getReport('trips')!;
const scope = { account: ACCOUNT, zone, nowMs: sidecar.nowMs };
const params = parseReportParams({ from, to }, def, scope);
const values = bindings(scope, params);
await prepareModelConnection(con);
const query = loadSql(queryName(def));
await prepareLookups(con, query, values);
const { sql, streamed } = await inStoredOrder(con, query, values);
const copySelect = csvSelect(def, sql);
// candidate lookups: one ENUM per key kind, the offsets' text per quarter hour, dense vehicle ids
for (const q of [
  `CREATE OR REPLACE TEMP TYPE trip_vkey AS ENUM (SELECT DISTINCT k FROM (SELECT '' AS k UNION ALL SELECT vehicle_id::VARCHAR FROM vehicle_departments($account)) WHERE k IS NOT NULL ORDER BY k)`,
  `CREATE OR REPLACE TEMP TYPE trip_dkey AS ENUM (SELECT DISTINCT k FROM (SELECT '' AS k UNION ALL SELECT driver_id FROM driver_names($account)) WHERE k IS NOT NULL ORDER BY k)`,
  `SET VARIABLE trip_lk2 = (
     WITH o AS (SELECT q, off FROM zone_offsets($zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day) + INTERVAL 2 DAY)),
     v AS (SELECT e.i, v.registration, v.department FROM (SELECT unnest(r) AS k, generate_subscripts(r, 1) AS i FROM (SELECT enum_range(NULL::trip_vkey) AS r)) AS e
           LEFT JOIN vehicle_departments($account) AS v ON v.vehicle_id::VARCHAR = e.k),
     dn AS (SELECT min(vehicle_id) AS vmin, max(vehicle_id) AS vmax FROM vehicle_departments($account)),
     dv AS (SELECT r.id - dn.vmin + 1 AS i, v.registration, v.department FROM dn, range(dn.vmin, dn.vmax + 1) AS r(id) LEFT JOIN vehicle_departments($account) AS v ON v.vehicle_id = r.id),
     d AS (SELECT e.i, d.driver_name FROM (SELECT unnest(r) AS k, generate_subscripts(r, 1) AS i FROM (SELECT enum_range(NULL::trip_dkey) AS r)) AS e
           LEFT JOIN driver_names($account) AS d ON d.driver_id = e.k)
     SELECT {
       q0: (SELECT min(q) FROM o), q1: (SELECT max(q) FROM o),
       off: (SELECT list(off ORDER BY q) FROM o),
       offt: (SELECT list(tz_offset_text(off) ORDER BY q) FROM o),
       registration: (SELECT list(registration ORDER BY i) FROM v),
       department: (SELECT list(department ORDER BY i) FROM v),
       vmin: (SELECT vmin FROM dn), vmax: (SELECT vmax FROM dn),
       dregistration: (SELECT list(registration ORDER BY i) FROM dv),
       ddepartment: (SELECT list(department ORDER BY i) FROM dv),
       driver_name: (SELECT list(driver_name ORDER BY i) FROM d)
     })`,
])
  await (await prepareBound(con, q, values)).run();
const L = (f: string) => `getvariable('trip_lk2').${f}`;
const enumLookups = (x: string) =>
  x
    .replaceAll("getvariable('trip_lookups').registration", L('registration'))
    .replaceAll("getvariable('trip_lookups').department", L('department'))
    .replaceAll("getvariable('trip_lookups').driver_name", L('driver_name'))
    .replace(
      "trip_key('v' || vehicle_id) AS v, trip_key('d' || driver_id) AS d",
      'enum_code(TRY_CAST(vehicle_id::VARCHAR AS trip_vkey)) + 1 AS v, enum_code(TRY_CAST(driver_id AS trip_dkey)) + 1 AS d',
    );
const denseLookups = (x: string) =>
  enumLookups(x)
    .replaceAll(L('registration'), L('dregistration'))
    .replaceAll(L('department'), L('ddepartment'))
    .replace(
      'enum_code(TRY_CAST(vehicle_id::VARCHAR AS trip_vkey)) + 1 AS v',
      `CASE WHEN vehicle_id BETWEEN ${L('vmin')} AND ${L('vmax')} THEN vehicle_id - ${L('vmin')} + 1 END AS v`,
    );
const qi = (c: string) =>
  `CASE WHEN epoch_us(t.${c}) // 900000000 BETWEEN ${L('q0')} AND ${L('q1')} THEN (epoch_us(t.${c}) // 900000000 - ${L('q0')})::BIGINT + 1 END`;
const fastTimes = (x: string) =>
  x
    .replace(
      'trip_offset(t.start_time, $zone) AS start_off,',
      `trip_offset(t.start_time, $zone) AS start_off, ${qi('start_time')} AS start_qi,`,
    )
    .replace(
      'trip_offset(t.end_time, $zone) AS end_off',
      `trip_offset(t.end_time, $zone) AS end_off, ${qi('end_time')} AS end_qi`,
    )
    .replace(
      'iso_local_at(s.start_time, s.start_off) AS start_time',
      `strftime(local_at(s.start_time, s.start_off), '%Y-%m-%dT%H:%M:%S') || coalesce(${L('offt')}[s.start_qi], tz_offset_text(s.start_off)) AS start_time`,
    )
    .replace(
      'iso_local_at(s.end_time, s.end_off) AS end_time',
      `strftime(local_at(s.end_time, s.end_off), '%Y-%m-%dT%H:%M:%S') || coalesce(${L('offt')}[s.end_qi], tz_offset_text(s.end_off)) AS end_time`,
    );
const leftDate = (x: string) =>
  x.replace(
    "strftime(local_at(s.start_time, s.start_off), '%Y-%m-%d') AS local_date",
    "left(strftime(local_at(s.start_time, s.start_off), '%Y-%m-%dT%H:%M:%S'), 10) AS local_date",
  );
const castUtc = (x: string) =>
  x.replace(
    "strftime(make_timestamp(epoch_us(s.start_time)), '%Y-%m-%d') AS utc_date",
    'make_timestamp(epoch_us(s.start_time))::DATE::VARCHAR AS utc_date',
  );
const fastGuard = (x: string) =>
  x.replace(
    /xl_text\((r\.[^)]*)\)/g,
    "CASE WHEN $1 >= 'A' OR ($1 >= '.' AND $1 < '=') THEN $1 ELSE xl_text($1) END",
  );
console.log(
  `range ${from}…${to}, streamed ${streamed}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

/** The statement without the vehicles' lookups (registration as the trip has it, no department). */
const noVehicle = (x: string) =>
  x
    .replace(
      /coalesce\(getvariable\('trip_lookups'\)\.registration\[t\.v\], t\.registration\)/,
      't.registration',
    )
    .replace(/getvariable\('trip_lookups'\)\.department\[t\.v\]/g, 'NULL')
    .replace(/trip_(key\('v' \|\| vehicle_id\)|vehicle\(vehicle_id\)) AS v/, '0 AS v');
/** … and without the driver's name. */
const noDriver = (x: string) =>
  x
    .replace(/getvariable\('trip_lookups'\)\.driver_name\[t\.d\]/, 'NULL')
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
  nooff: csvSelect(def, sql.replace(/trip_offset\(t\.(\w+), (t\.\w+, )?\$zone\)/g, '36000')),
  enumlk: csvSelect(def, enumLookups(sql)),
  denselk: csvSelect(def, denseLookups(sql)),
  offt: csvSelect(def, fastTimes(sql)),
  dates: csvSelect(def, castUtc(leftDate(sql))),
  guard: fastGuard(csvSelect(def, sql)),
  all: fastGuard(csvSelect(def, castUtc(leftDate(fastTimes(denseLookups(sql)))))),
  nodbl: csvSelect(def, sql.replace(/round\(s\.(\w+) \/ 1000\.0, 3\)::DOUBLE/g, 's.$1')),
  bare: `SELECT * FROM trips WHERE account = '${ACCOUNT}'
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

async function copyOnce(name: string, out: string): Promise<number> {
  const select = variantSql[name];
  if (!select) throw new Error(`no variant ${name}`);
  const ps = await prepareBound(con, `COPY (\n${select}\n) TO '${out}' (FORMAT csv, HEADER true)`, values);
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
      name === 'export'
        ? (await exportReport(con, def, scope, params, 'csv', out)).rows
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
        .slice(0, 6);
      for (const o of ops)
        console.log(
          `    ${String(o.operator_name).padEnd(20)} ${(o.operator_timing ?? 0).toFixed(3)} s ${JSON.stringify(o.extra_info ?? {}).slice(0, 160)}`,
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
