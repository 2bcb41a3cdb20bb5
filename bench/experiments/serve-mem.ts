/**
 * What a served database's downloads cost in memory, alone: the real server (`startServer`) on a
 * copy of a seeded file, `N` trips CSV downloads of `DAYS` days to yesterday asked at once over
 * loopback (they queue: one COPY at a time), the RSS sampled every 100 ms.
 * `node --import tsx bench/experiments/serve-mem.ts <seed.duckdb> [downloads] [days]`
 * Env: BENCH_DB_MEMORY / BENCH_DB_THREADS as the load bench; SERVE_SQL: statements run once on
 * the instance before serving (e.g. "SET allocator_background_threads=true").
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { addDays, localDate } from '../../src/time.ts';
import { serveSeeded } from '../reports.ts';

const [seedPath = '', n = '4', days = '365'] = process.argv.slice(2);
const meta = JSON.parse(readFileSync(`${seedPath}.json`, 'utf8')) as { nowMs: number; timezone: string };
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-servemem-'));
const dbPath = join(dir, 'db.duckdb');
copyFileSync(seedPath, dbPath);
const rss = () => process.memoryUsage.rss() / 2 ** 20;
let peak = rss();
const timer = setInterval(() => (peak = Math.max(peak, rss())), 100);
const load0 = loadavg()[0]!;
const { db, srv } = await serveSeeded({ dbPath, nowMs: meta.nowMs, timezone: meta.timezone });
if (process.env.SERVE_SQL) {
  const con = await db.connect();
  for (const s of process.env.SERVE_SQL.split(';').filter((x) => x.trim())) await con.run(s);
  con.closeSync();
}
const start = rss();
const today = localDate(meta.nowMs, meta.timezone);
const url = `http://127.0.0.1:${srv.port}/api/reports/trips.csv?from=${addDays(today, -Number(days))}&to=${addDays(today, -1)}`;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const out = await Promise.all(
  Array.from({ length: Number(n) }, async () => {
    const res = await request(url, { headersTimeout: 1_800_000, bodyTimeout: 1_800_000 });
    const h = createHash('sha256');
    let bytes = 0;
    let body = '';
    for await (const c of res.body) {
      if (res.statusCode !== 200) body += String(c).slice(0, 400);
      h.update(c as Buffer);
      bytes += (c as Buffer).length;
    }
    return `${res.statusCode} ${(bytes / 1e6).toFixed(1)} MB ${h.digest('hex').slice(0, 12)}${res.statusCode === 200 ? '' : ` ${body}`}`;
  }),
);
const cpu = process.cpuUsage(cpu0);
clearInterval(timer);
await srv.close();
db.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    memory: process.env.BENCH_DB_MEMORY ?? 'default',
    threads: process.env.BENCH_DB_THREADS ?? 'default',
    sql: process.env.SERVE_SQL ?? '',
    startMb: Math.round(start),
    peakMb: Math.round(peak),
    wallS: +((performance.now() - t0) / 1000).toFixed(1),
    cpuS: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    load: `${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
    downloads: out,
  }),
);
