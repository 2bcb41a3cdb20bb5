/**
 * The trips CSV export (`exportReport`, manifest included) of several checkouts on the same
 * seeded database, alternating, each run in its own process with that checkout's own export code
 * and queries, wall and CPU time (process.cpuUsage: DuckDB's threads included) per export, and a
 * bare COPY of the same rows in the same process after it:
 * `node --import tsx bench/experiments/export-ab.ts <seed.duckdb> [rounds] [rows] <checkout> …`
 * Both run as the bench's (bench/exports.ts) do: the export owns the instance (ExportOptions.ownsInstance:
 * its COPY at one DuckDB thread, as `fleetsync export`'s), and the bare COPY runs at one thread too.
 * THREADS=n sets DuckDB's threads for both instead.
 * Each checkout gets its own copy of the seed (an older one may not open a newer file in place).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { copyTripsBare, exportRange } from '../exports.ts';
import { ACCOUNT } from '../seed.ts';

async function child(root: string, dbPath: string, rows: number) {
  const imp = (p: string) => import(pathToFileURL(join(root, p)).href);
  const { exportReport } = await imp('src/reports/export.ts');
  const { getReport } = await imp('src/reports/registry.ts');
  const { parseReportParams } = await imp('src/reports/params.ts');
  const { openDatabase } = await imp('src/store/db.ts');
  const side = JSON.parse(readFileSync(`${dbPath}.json`, 'utf8')) as { nowMs: number; timezone: string };
  const db = await openDatabase(dbPath);
  const con = await db.connect();
  // a checkout whose export takes a side connection (ExportOptions.side) uses it; an older one ignores it
  const sideCon = await db.connect();
  const threads = process.env.THREADS ? Number(process.env.THREADS) : null;
  if (threads) await con.run(`SET threads = ${threads}`);
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-export-ab-'));
  try {
    const { from, to } = await exportRange(con, side.timezone, rows);
    const def = getReport('trips');
    const scope = { account: ACCOUNT, zone: side.timezone, nowMs: side.nowMs };
    const params = parseReportParams({ from, to }, def, scope);
    const timed = async (run: (out: string) => Promise<unknown>) => {
      const out = join(dir, `t-${Math.random()}.csv`);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run(out);
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      const bytes = statSync(out).size;
      rmSync(out, { force: true });
      return { ms, cpuMs: (c.user + c.system) / 1000, bytes };
    };
    // an older checkout ignores ownsInstance (its COPY then runs at the instance's threads)
    const exp = await timed((out) =>
      exportReport(con, def, scope, params, 'csv', out, { side: sideCon, ownsInstance: !threads }),
    );
    const bare = await timed((out) =>
      copyTripsBare(con, side.timezone, { from, to }, out, threads ? 'instance' : 'one'),
    );
    return { from, to, exp, bare };
  } finally {
    sideCon.closeSync();
    con.closeSync();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') {
  const r = await child(resolve(process.argv[3]!), process.argv[4]!, Number(process.argv[5]));
  process.stdout.write(JSON.stringify(r) + '\n');
} else {
  const [seed = '', roundsArg = '3', rowsArg = '1000000', ...roots] = process.argv.slice(2);
  const work = mkdtempSync(join(tmpdir(), 'fleetsync-bench-export-ab-seeds-'));
  try {
    const copies = roots.map((root, i) => {
      const p = join(work, `${i}.duckdb`);
      copyFileSync(seed, p);
      copyFileSync(`${seed}.json`, `${p}.json`);
      return { root, p };
    });
    for (let r = 0; r < Number(roundsArg); r++)
      for (const { root, p } of copies) {
        const l0 = loadavg()[0]!.toFixed(1);
        const out = execFileSync(
          process.execPath,
          ['--import', 'tsx', new URL(import.meta.url).pathname, 'child', root, p, rowsArg],
          { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 },
        );
        const x = JSON.parse(out.trim().split('\n').at(-1)!) as {
          exp: { ms: number; cpuMs: number; bytes: number };
          bare: { ms: number; cpuMs: number; bytes: number };
        };
        const s = (ms: number) => (ms / 1000).toFixed(2);
        console.log(
          `round ${r} ${root}: export wall ${s(x.exp.ms)} s cpu ${s(x.exp.cpuMs)} s (${(x.exp.bytes / 1e6).toFixed(1)} MB); ` +
            `bare COPY wall ${s(x.bare.ms)} s cpu ${s(x.bare.cpuMs)} s; ÷ ${(x.exp.ms / x.bare.ms).toFixed(2)}× wall, ${(x.exp.cpuMs / x.bare.cpuMs).toFixed(2)}× CPU; load ${l0} → ${loadavg()[0]!.toFixed(1)}`,
        );
      }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
