/**
 * What a cached dashboard call costs in DuckDB: the data-version query (reports/meta_key) and the
 * status version, timed N times on a copy of a seeded file, at DuckDB threads 1 and 2 alternating.
 * `node --import tsx bench/experiments/version-cost.ts <seed.duckdb> [n]`
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, SERVING_DB } from '../../src/store/db.ts';
import { dataVersion, statusVersion } from '../../src/server/report-cache.ts';
import type { ReportScope } from '../../src/reports/run.ts';
import { ACCOUNT } from '../seed.ts';

const [seedPath = '', n = '200'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-version-'));
const dbPath = join(dir, 'db.duckdb');
copyFileSync(seedPath, dbPath);
try {
  for (const round of [0, 1])
    for (const threads of [1, 2]) {
      const db = await openDatabase(dbPath, { ...SERVING_DB, threads });
      const con = await db.connect();
      const scope = { account: ACCOUNT, zone: 'UTC', nowMs: Date.now() } as unknown as ReportScope;
      for (const [name, fn] of [
        ['meta_key', () => dataVersion(con, scope)],
        ['status', () => statusVersion(con)],
      ] as const) {
        await fn();
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < Number(n); i++) await fn();
        const ms = (performance.now() - t0) / Number(n);
        const c = process.cpuUsage(cpu0);
        console.log(
          `round ${round} threads ${threads} ${name}: ${ms.toFixed(2)} ms a call, CPU ${((c.user + c.system) / 1000 / Number(n)).toFixed(2)} ms, load ${loadavg()[0]!.toFixed(1)}`,
        );
      }
      con.closeSync();
      db.close();
    }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
