/**
 * Puts a seeded database's trips and visits in time order (seedInTimeOrder, bench/seed.ts), as
 * a run that reuses the seed does first; timed, with the process's CPU.
 * `node --import tsx bench/experiments/seed-order.ts <seed.duckdb>`
 */
import { loadavg } from 'node:os';
import { openDatabase } from '../../src/store/db.ts';
import { seedInTimeOrder } from '../seed.ts';

const [path = ''] = process.argv.slice(2);
const db = await openDatabase(path);
const con = await db.connect();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
try {
  const rewritten = await seedInTimeOrder(con);
  const c = process.cpuUsage(cpu0);
  console.log(
    `rewrote ${rewritten.join(', ') || 'nothing'} in ${((performance.now() - t0) / 1000).toFixed(1)} s, CPU ${((c.user + c.system) / 1e6).toFixed(1)} s, load ${loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  con.closeSync();
  db.close();
}
