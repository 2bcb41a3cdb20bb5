/**
 * What a sync stores, as one hash per table, to compare two checkouts (common rule: a sync-path
 * change stores the same data): the simulator's 30 vehicles × 40 days (seed 11) synced twice, the
 * history but its last 5 days and then an incremental run, and every table of `main` hashed as the
 * sorted multiset of its rows, without the clock columns (`*_at`, `since`, `last_probed`,
 * `fetched_at`), run ids and the simulator's port. Run it in each checkout and diff the output:
 * `node --import tsx bench/experiments/sync-hash.ts > a.json`. SHOW=1 also prints the runs' rows.
 * `runs.rows_by_stream` is JSON in the order the streams finished, which may differ run to run.
 */
import { createHash } from 'node:crypto';
import { startHarness } from '../../test/helpers/synced.ts';
import { addDays } from '../../src/time.ts';

const CLOCK = /(_at|^since|^last_probed|^run_id|^started_ms|^ended_ms)$/;
const h = await startHarness({ fleet: { vehicles: 30, days: 40, seed: 11 }, instantWaits: true });
const s1 = await h.sync({ toDay: addDays(h.lastDay, -5) });
const s2 = await h.sync();
const con = await h.db.connect();
const names = async (sql: string, key: string) =>
  (await con.runAndReadAll(sql)).getRowObjectsJS().map((r) => String(r[key]));
const out: Record<string, string> = {};
for (const t of await names(
  "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1",
  'table_name',
)) {
  const cols = (
    await names(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '${t}' ORDER BY ordinal_position`,
      'column_name',
    )
  ).filter((c) => !CLOCK.test(c));
  const rows = (
    await con.runAndReadAll(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM main."${t}"`)
  ).getRowObjectsJson();
  const lines = rows.map((r) => JSON.stringify(r).replace(/127\.0\.0\.1:\d+/g, 'HOST')).sort();
  out[t] = `${lines.length} ${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
}
if (process.env.SHOW)
  console.log(
    JSON.stringify(
      (
        await con.runAndReadAll(
          'SELECT * EXCLUDE (run_id, started_at, ended_at) FROM runs ORDER BY range_from',
        )
      ).getRowObjectsJson(),
      null,
      1,
    ),
  );
console.log(
  JSON.stringify({ runs: [s1.outcome, s1.requests, s2.outcome, s2.requests], tables: out }, null, 1),
);
con.closeSync();
await h.close();
process.exit(0);
