/**
 * Which threads of the process do a trips export's work: each variant's wall and CPU time and the
 * CPU of every thread that took more than 20 ms (/proc/self/task/N/stat; DuckDB's threads, Node's
 * main thread, libuv's pool), rounds repeated, in one process on a seeded database:
 * `node --import tsx bench/experiments/export-threads.ts <db.duckdb> [rounds] [variant,variant]`
 * Variants: export (exportReport with a side connection; NOSIDE=1 without one), copy (its COPY
 * alone), bare (the bench's reference COPY); VARIANT_<name>=<select> adds one. SETTINGS=<sql> runs
 * first (e.g. `SET memory_limit = '2GB'`); THREADS=n sets DuckDB's threads. A COPY that DuckDB runs
 * on one thread shows one busy thread, or two of equal CPU when the calling thread waits by
 * spinning while DuckDB's worker runs it (PendingQueryResult::ExecuteInternal). Give it a copy of
 * the seed.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { csvSelect, exportReport, inStoredOrder } from '../../src/reports/export.ts';
import { prepareBound, prepareLookups } from '../../src/reports/run.ts';
import { tripsExportSetup } from './trips-export-setup.ts';
import { ACCOUNT } from '../seed.ts';

const [dbPath = '', rounds = '2', variants = 'export,copy,bare'] = process.argv.slice(2);
const { db, con, dir, zone, from, to, def, scope, params, values, query } = await tripsExportSetup(
  dbPath,
  1_000_000,
  'fleetsync-bench-exp-threads-',
);
if (process.env.SETTINGS) await con.run(process.env.SETTINGS);
const side = await db.connect();
await prepareLookups(con, query, values);
const { sql } = await inStoredOrder(con, query, values);
const TICKS = 100; // clock ticks a second (getconf CLK_TCK)

/** CPU seconds of each live thread of this process, by thread id. */
function threadCpu(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    m.set(t, (Number(f[11]) + Number(f[12])) / TICKS);
  }
  return m;
}

const selects: Record<string, string> = {
  copy: csvSelect(def, sql),
  bare: `SELECT * FROM trips WHERE account = '${ACCOUNT}'
           AND start_time >= timezone('${zone}', TIMESTAMP '${from} 00:00:00')
           AND start_time < timezone('${zone}', TIMESTAMP '${to} 00:00:00' + INTERVAL 1 DAY)`,
};
for (const [k, v] of Object.entries(process.env))
  if (k.startsWith('VARIANT_') && v) selects[k.slice(8).toLowerCase()] = v;

for (let r = 0; r < Number(rounds); r++)
  for (const name of variants.split(',')) {
    const out = join(dir, `${name}-${r}.csv`);
    const before = threadCpu();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    if (name === 'export')
      await exportReport(con, def, scope, params, 'csv', out, process.env.NOSIDE ? {} : { side });
    else
      await (
        await prepareBound(con, `COPY (\n${selects[name]}\n) TO '${out}' (FORMAT csv, HEADER true)`, values)
      ).run();
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    const busy = [...threadCpu()]
      .map(([t, s]) => s - (before.get(t) ?? 0))
      .filter((s) => s > 0.02)
      .sort((a, b) => b - a);
    console.log(
      `${r} ${name.padEnd(8)} wall ${(ms / 1000).toFixed(2)} s cpu ${((c.user + c.system) / 1e6).toFixed(2)} s, ` +
        `threads ${busy.map((s) => s.toFixed(2)).join(' ')}; load ${loadavg()[0]!.toFixed(1)}`,
    );
    rmSync(out, { force: true });
    rmSync(`${out}.manifest.json`, { force: true });
  }
side.closeSync();
con.closeSync();
db.close();
rmSync(dir, { recursive: true, force: true });
