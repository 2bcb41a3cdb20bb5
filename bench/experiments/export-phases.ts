/**
 * The CPU of each phase of a trips export (`exportReport`'s steps, run one after another in one
 * process on a seeded database, as exportReport runs them), rounds repeated:
 * `node --import tsx bench/experiments/export-phases.ts <db.duckdb> [rounds] [rows] [csv|parquet]`
 * Phases: the lookups (trip_keys, trip_lookups), the stored-order check, the COPY, the file's
 * SHA-256 read back (exportReport hashes while COPY writes; here apart, to see its cost), the
 * meta, the totals. CPU is process.cpuUsage (DuckDB's threads included). THREADS=n: DuckDB's
 * threads. Give it a copy of the seed.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { csvSelect, fileDigest, inStoredOrder } from '../../src/reports/export.ts';
import { pageTotals, prepareBound, prepareLookups, reportMeta } from '../../src/reports/run.ts';
import { tripsExportSetup } from './trips-export-setup.ts';

const [dbPath = '', roundsArg = '3', rowsArg = '1000000', format = 'csv'] = process.argv.slice(2);
const { db, con, dir, from, to, def, scope, values, query } = await tripsExportSetup(
  dbPath,
  Number(rowsArg),
  'fleetsync-bench-exp-phases-',
);
console.log(`range ${from}…${to}, ${format}, load ${loadavg()[0]!.toFixed(2)}`);
const cpu: Record<string, number[]> = {};
const phase = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
  const c0 = process.cpuUsage();
  const r = await run();
  const c = process.cpuUsage(c0);
  (cpu[name] ??= []).push((c.user + c.system) / 1e6);
  return r;
};
for (let round = 0; round < Number(roundsArg); round++) {
  const out = join(dir, `t-${round}.${format}`);
  await phase('lookups', () => prepareLookups(con, query, values));
  const { sql } = await phase('order check', () => inStoredOrder(con, query, values));
  await phase('COPY', async () => {
    const select = format === 'csv' ? csvSelect(def, sql) : sql.trim().replace(/;\s*$/, '');
    const opts = format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    await (await prepareBound(con, `COPY (\n${select}\n) TO '${out}' (${opts})`, values)).run();
  });
  await phase('SHA-256', () => fileDigest(out));
  await phase('meta', () => reportMeta(con, scope));
  await phase('totals', () => pageTotals(con, def, sql, values));
  rmSync(out, { force: true });
}
for (const [name, xs] of Object.entries(cpu))
  console.log(
    `${name.padEnd(12)} cpu ${xs.map((x) => x.toFixed(3)).join(' ')} s (least ${Math.min(...xs).toFixed(3)})`,
  );
console.log(`load ${loadavg()[0]!.toFixed(2)}`);
con.closeSync();
db.close();
rmSync(dir, { recursive: true, force: true });
