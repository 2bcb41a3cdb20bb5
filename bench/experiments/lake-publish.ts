/**
 * A worker job's lake publish for an account with two years of history, before and after the
 * publish wrote only the changed partitions (issue 29, session 15 `lake2`):
 *
 *   node --import tsx bench/experiments/lake-publish.ts [vehicles=20] [days=730] [rounds=3] [base]
 *
 * The account is seeded through the production write path (bench/seed.ts, as the large bench) into
 * a temp file, run with the worker job's DuckDB threads (SYNC_DB_THREADS). A "night" is the last
 * day's rows of every month-partitioned table taken out, published (not timed), and put back, then
 * published (timed): the job that adds one day. Each round times, alternately first, the publish of
 * `base` (a checkout of main: its src/lake/publish.ts, every month of every table rewritten) into
 * its own lake and this checkout's (only the changed partitions), and this checkout's once more
 * with nothing changed (its check alone); before the rounds, the first publish into an empty lake,
 * both ways. Wall and CPU (process.cpuUsage: DuckDB's threads
 * included), the files written, the load average. Prints one JSON line a round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { lakeTables, lit, q, publishAccount } from '../../src/lake/publish.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { SYNC_DB_THREADS, openDatabase, setDatabaseThreads } from '../../src/store/db.ts';
import { ACCOUNT, seedDatabase } from '../seed.ts';
import { END_DAY, SEED } from '../world.ts';

const vehicles = Number(process.argv[2] ?? 20);
const days = Number(process.argv[3] ?? 730);
const rounds = Number(process.argv[4] ?? 3);
const base = process.argv[5] ?? '/work/wt-lake2-base';

type Publish = (con: DuckDBConnection, account: string, lake: string) => Promise<{ files: number }>;
const oldPublish = (await import(join(base, 'src', 'lake', 'publish.ts'))).publishAccount as Publish;

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-lake-'));
const db = await openDatabase(join(dir, 'account.duckdb'));
const con = await db.connect();
try {
  const fleet = generateFleet({ seed: SEED, vehicles, days, endDay: END_DAY });
  const nowMs = fleet.endMs + 4 * 3_600_000;
  const seeded = await seedDatabase(con, fleet, nowMs);
  await con.run('CHECKPOINT');
  await setDatabaseThreads(db, SYNC_DB_THREADS);
  const lastDay = new Date(fleet.endMs - 86_400_000).toISOString();
  const tables = (await lakeTables(con)).filter((t) => t.monthColumn !== null);
  /** The last day's rows of every month-partitioned table: out (kept aside) or back in. */
  const lastDayRows = async (out: boolean) => {
    for (const t of tables) {
      const where = `account = ${lit(ACCOUNT)} AND ${q(t.monthColumn!)} >= ${lit(lastDay)}`;
      if (out) {
        await con.run(
          `CREATE OR REPLACE TEMP TABLE ${q('night_' + t.name)} AS SELECT * FROM ${q(t.name)} WHERE ${where}`,
        );
        await con.run(`DELETE FROM ${q(t.name)} WHERE ${where}`);
      } else await con.run(`INSERT INTO ${q(t.name)} SELECT * FROM ${q('night_' + t.name)}`);
    }
  };
  const lakes = { old: join(dir, 'lake-old'), new: join(dir, 'lake-new') };
  const publish = { old: oldPublish, new: publishAccount };
  const timed = async (which: 'old' | 'new') => {
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const r = await publish[which](con, ACCOUNT, lakes[which]);
    const wallMs = performance.now() - t0;
    const c = process.cpuUsage(cpu);
    return { wallMs: Math.round(wallMs), cpuMs: Math.round((c.user + c.system) / 1000), files: r.files };
  };
  const trips = seeded.trips;
  // The first publish of the account (an empty lake: every partition, both ways).
  const first = { old: await timed('old'), new: await timed('new') };
  console.log(JSON.stringify({ round: 'first publish', vehicles, days, trips, ...first }));
  for (let round = 1; round <= rounds; round++) {
    const order: ('old' | 'new')[] = round % 2 ? ['old', 'new'] : ['new', 'old'];
    const out: Record<string, unknown> = { round, vehicles, days, trips, load: loadavg()[0]!.toFixed(1) };
    await lastDayRows(true);
    for (const w of order) await publish[w](con, ACCOUNT, lakes[w]);
    await lastDayRows(false);
    for (const w of order) out[w] = await timed(w);
    out.unchanged = await timed('new');
    out.loadAfter = loadavg()[0]!.toFixed(1);
    console.log(JSON.stringify(out));
  }
} finally {
  con.closeSync();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
