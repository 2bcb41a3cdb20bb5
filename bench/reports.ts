/**
 * Benchmark 4 (reports at scale) and the serving half of 6 (memory). A child seeds a DuckDB file
 * from `generateFleet` (bench/seed.ts); another child opens it, starts the real server
 * (`startServer`, port 0, loopback) and times every dashboard API call over HTTP, and every
 * report query in-process (`runReport`, in a child of its own), p50/p95 over `iterations` after
 * one warm-up each; the serving child reports its own peak RSS.
 *
 * Dashboard calls are what the pages fetch: GET /api/status, GET /api/reports/vehicles (filter
 * bar) and GET /api/reports/<report>?from&to for each report a page shows, for the dashboard's
 * periods "last 3 months" (the default preset) and a full year. Fleet-wide `trips` is a download (CSV); the
 * mileage page shows trips of one vehicle in one month, measured as its own dashboard call.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { loadConfig } from '../src/config.ts';
import { silentLogger } from '../src/log.ts';
import { parseReportParams } from '../src/reports/params.ts';
import { REPORT_NAMES, getReport } from '../src/reports/registry.ts';
import { runReport } from '../src/reports/run.ts';
import { MAX_PAGE_ROWS } from '../src/server/report-routes.ts';
import { startServer } from '../src/server/start.ts';
import { generateFleet } from '../src/simulator/generate.ts';
import { openDatabase, SERVING_DB } from '../src/store/db.ts';
import { addDays, localDate } from '../src/time.ts';
import { describeMem, memorySampler, type MemPhase } from './mem.ts';
import { fig, peakRssMb, percentile, round, runChild, say, type Figure } from './lib.ts';
import { ACCOUNT, seedFacts, seedFleetWide, seedInTimeOrder, seedVehicles, type SeedCounts } from './seed.ts';
import { END_DAY, SEED } from './world.ts';

/** A dashboard call's first (uncached) answer: what a user's first page after a nightly sync pays. */
export const COLD_TARGET_MS = 1000;
/** Reports a page never fetches fleet-wide over a period (only as a download). */
export const DOWNLOAD_ONLY = new Set(['trips']);
/** Reports asked for the largest JSON page a client may ask for (streamed by the server). */
const LARGE_PAGES = ['trips', 'tolls'];

export interface SeedResult {
  dbPath: string;
  nowMs: number;
  timezone: string;
  counts: SeedCounts;
  seedMs: number;
  generateMs: number;
  peakRssMb: number;
  /** The seed was made by an earlier run (its figures are that run's). */
  reused?: boolean;
}

/** Vehicles per batch of the seed: one batch's trips and visits are held at a time (~1.15 MB a vehicle over 2 years). */
const SEED_BATCH = 1000;
/** Bump when bench/seed.ts writes other rows: a cached seed of another format is not reused. */
export const SEED_FORMAT = 1;

/**
 * Where a seeded database of `vehicles` × `days` is kept between runs (git-ignored): seeding
 * 5,000 vehicles × 730 days takes minutes, so every later run copies this file instead.
 */
export function seedCachePath(vehicles: number, days: number): string {
  const dir = fileURLToPath(new URL('./results/seed/', import.meta.url));
  return join(dir, `reports-${vehicles}x${days}-s${SEED}-${END_DAY}-f${SEED_FORMAT}.duckdb`);
}

/**
 * Seeds `path` (unless a finished seed is there: its sidecar `<path>.json` is written last) and
 * answers the seed's figures. A reused file is opened once, so migrations added since it was
 * seeded are applied to it here and not in each run's copy.
 */
export async function seedChild(a: { vehicles: number; days: number; path: string }): Promise<SeedResult> {
  const sidecar = `${a.path}.json`;
  if (existsSync(a.path) && existsSync(sidecar)) {
    const db = await openDatabase(a.path);
    // a seed written before its trips and visits were put in time order gets them so, once
    const con = await db.connect();
    try {
      const rewritten = await seedInTimeOrder(con);
      if (rewritten.length) say(`seed: ${rewritten.join(', ')} put in time order (issue 29)`);
    } finally {
      con.closeSync();
      db.close();
    }
    const cached = JSON.parse(readFileSync(sidecar, 'utf8')) as SeedResult;
    return { ...cached, dbPath: a.path, reused: true };
  }
  const tmp = `${a.path}.tmp`;
  mkdirSync(dirname(a.path), { recursive: true });
  rmSync(tmp, { force: true });
  rmSync(`${tmp}.wal`, { force: true });
  const opts = { seed: SEED, vehicles: a.vehicles, days: a.days, endDay: END_DAY };
  let db = await openDatabase(tmp);
  let con = await db.connect();
  let generateMs = 0;
  let seedMs = 0;
  let nowMs = 0;
  let timezone = '';
  const counts: SeedCounts = {};
  try {
    for (let i = 0; i < a.vehicles; i += SEED_BATCH) {
      // A fresh fleet for each batch (the same fleet: the generator is seeded), so the series
      // built for the previous batch are garbage.
      const g0 = performance.now();
      const fleet = generateFleet(opts);
      const vs = fleet.vehicles.slice(i, i + SEED_BATCH);
      for (const v of vs) {
        fleet.tripsOf(v.vehicle_id); // enumerate now, outside the seed timing
        fleet.visitsOf(v.vehicle_id);
      }
      generateMs += performance.now() - g0;
      nowMs = fleet.endMs + 4 * 86_400_000;
      timezone = fleet.timezone;
      const t0 = performance.now();
      if (i === 0) await seedFleetWide(con, fleet, nowMs, counts);
      await seedVehicles(con, fleet, vs, nowMs, counts);
      seedMs += performance.now() - t0;
      if (a.vehicles > SEED_BATCH)
        say(
          `seed: ${i + vs.length} / ${a.vehicles} vehicles, ${counts.trips ?? 0} trips, ${round(seedMs / 1000)} s writing`,
        );
    }
    const t0 = performance.now();
    // The facts in a fresh instance: the one that wrote every row holds the keyed tables' indexes
    // whole in its pool (a process that syncs loads only the parts it touches), and at 5,000
    // vehicles the facts' statements then ran out of the 256 MB pool.
    await con.run('CHECKPOINT');
    con.closeSync();
    db.close();
    db = await openDatabase(tmp);
    con = await db.connect();
    await seedFacts(con, timezone, counts);
    await seedInTimeOrder(con);
    await con.run('CHECKPOINT');
    seedMs += performance.now() - t0;
  } finally {
    con.closeSync();
    db.close();
  }
  const result: SeedResult = {
    dbPath: a.path,
    nowMs,
    timezone,
    counts,
    seedMs,
    generateMs,
    peakRssMb: peakRssMb(),
  };
  renameSync(tmp, a.path);
  writeFileSync(sidecar, JSON.stringify(result) + '\n');
  return result;
}

export interface Latency {
  name: string;
  kind: 'http' | 'query';
  dashboard: boolean;
  rows: number;
  p50: number;
  p95: number;
  /**
   * The first call's time (the warm-up): after the server started, so its answer was not yet
   * memoized (src/server's versioned memo) — what a user's first page after a nightly sync pays.
   */
  cold: number;
  n: number;
  /** The call failed (its message); p50/p95 are then NaN. */
  error?: string;
  /** The process's peak RSS once this call had been measured (where the peak grew). */
  peakRssMb: number;
}

export interface ServeResult {
  latencies: Latency[];
  /** Peak RSS once every dashboard call has run (before download-only calls and in-process queries). */
  dashboardPeakRssMb: number;
  peakRssMb: number;
  baselineRssMb: number;
  /** BENCH_MEM=1: what the RSS was made of in each phase (bench/mem.ts). */
  mem?: Record<string, MemPhase>;
  /** Peak RSS of the bench's own process that ran every report query in-process (not a server). */
  queriesPeakRssMb?: number;
}

/**
 * The periods the dashboard calls are timed over (issue 29): the dashboard's default preset
 * "last 3 months" (dashboard/js/filters.js: this month and the two before it) and a full year
 * (the 365 days to today).
 */
export function presets(today: string): Record<string, { from: string; to: string }> {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  const [yy, mm] = m <= 2 ? [y - 1, m + 10] : [y, m - 2];
  return {
    last_3_months: { from: `${yy}-${String(mm).padStart(2, '0')}-01`, to: today },
    full_year: { from: addDays(today, -364), to: today },
  };
}

/** The real server (loopback, port 0, no schedule) on a seeded database, at the seed's clock. */
export async function serveSeeded(
  a: { dbPath: string; nowMs: number; timezone: string },
  extra: Partial<Parameters<typeof startServer>[0]> = {},
) {
  // DuckDB as `fleetsync serve` opens it; BENCH_DB_MEMORY, BENCH_DB_THREADS and BENCH_DB_SETTINGS
  // (JSON, e.g. {"allocator_background_threads":"false"}) change it (diagnostic).
  const env = process.env;
  const db = await openDatabase(a.dbPath, {
    ...SERVING_DB,
    ...(env.BENCH_DB_MEMORY ? { memoryLimit: env.BENCH_DB_MEMORY } : {}),
    ...(env.BENCH_DB_THREADS ? { threads: Number(env.BENCH_DB_THREADS) } : {}),
    settings: {
      ...SERVING_DB.settings,
      ...(env.BENCH_DB_SETTINGS ? (JSON.parse(env.BENCH_DB_SETTINGS) as Record<string, string>) : {}),
    },
  });
  const config = loadConfig({
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: a.timezone,
    FLEETSYNC_PORT: '0',
    FLEETSYNC_DB: a.dbPath,
  });
  const srv = await startServer({
    db,
    config,
    log: silentLogger,
    now: () => a.nowMs,
    schedule: null,
    port: 0,
    host: '127.0.0.1',
    // as `fleetsync serve` (BENCH_WARM=0: without the overview's warm-up, for an A/B)
    warmUp: env.BENCH_WARM !== '0',
    ...extra,
  });
  return { db, srv };
}

/**
 * Times `fn` (one warm-up: its time is the cold figure, then up to `iterations` samples) and
 * records it in `into`. A call that fails (an HTTP error) is recorded with its error, not thrown:
 * one failing report does not hide every other figure.
 */
function timer(into: Latency[], iterations: number) {
  return async (name: string, kind: Latency['kind'], dashboard: boolean, fn: () => Promise<number>) => {
    const times: number[] = [];
    const c0 = performance.now();
    let rows = 0;
    let cold = NaN;
    try {
      rows = await fn(); // warm-up: the cold call
      cold = performance.now() - c0;
      // Slow calls (large JSON, uncached: 10–30 s each at 5,000 vehicles) stop after 1 sample
      // once they have used 5 s: p50 and p95 are then that sample (more repeated the same figure).
      const start = performance.now();
      for (let i = 0; i < iterations && !(i >= 1 && performance.now() - start > 5000); i++) {
        const t0 = performance.now();
        rows = await fn();
        times.push(performance.now() - t0);
      }
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      say(`${name}: FAILED after ${round(performance.now() - c0)} ms: ${error}`);
      into.push({
        name,
        kind,
        dashboard,
        rows,
        p50: NaN,
        p95: NaN,
        cold,
        n: 0,
        peakRssMb: peakRssMb(),
        error,
      });
      return;
    }
    times.sort((x, y) => x - y);
    say(
      `${name}: cold ${round(cold)} ms, p50 ${round(percentile(times, 50))} ms, p95 ${round(percentile(times, 95))} ms`,
    );
    into.push({
      name,
      kind,
      dashboard,
      rows,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      cold,
      n: times.length,
      peakRssMb: peakRssMb(),
    });
  };
}

export async function serveChild(a: {
  dbPath: string;
  nowMs: number;
  timezone: string;
  iterations: number;
}): Promise<ServeResult> {
  const baselineRssMb = peakRssMb();
  // No warm-up here: a call's cold figure is what computing its first answer costs (the pages
  // part measures the overview's first visit with the warm-up, as `fleetsync serve` runs it).
  const { db, srv } = await serveSeeded(a, { warmUp: false });
  const sampler = memorySampler(process.env.BENCH_MEM ? await db.connect() : null);
  sampler.phase('dashboard');
  const base = `http://127.0.0.1:${srv.port}`;
  const latencies: Latency[] = [];
  const measure = timer(latencies, a.iterations);
  // an uncached call on 17.6 M trips at a high load took longer than undici's 300 s default
  const slow = { headersTimeout: 1_800_000, bodyTimeout: 1_800_000 };
  const get = async (path: string) => {
    const res = await request(`${base}${path}`, slow);
    const body = (await res.body.json()) as { rows?: unknown[] };
    if (res.statusCode !== 200)
      throw new Error(`GET ${path}: HTTP ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
    return Array.isArray(body.rows) ? body.rows.length : 1;
  };
  /** Reads a large answer to its end, counting bytes only; its rows from X-Fleetsync-Rows. */
  const getLarge = async (path: string) => {
    const res = await request(`${base}${path}`, slow);
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    if (res.statusCode !== 200 || bytes === 0) throw new Error(`GET ${path}: HTTP ${res.statusCode}`);
    return Math.min(MAX_PAGE_ROWS, Number(res.headers['x-fleetsync-rows']));
  };
  try {
    const today = localDate(a.nowMs, a.timezone);
    await measure('GET /api/status', 'http', true, () => get('/api/status'));
    await measure('GET /api/reports', 'http', true, () => get('/api/reports'));
    const periodCalls = async (dashboard: boolean) => {
      for (const [preset, range] of Object.entries(presets(today)))
        for (const name of REPORT_NAMES) {
          if (DOWNLOAD_ONLY.has(name) === dashboard) continue;
          const q = `from=${range.from}&to=${range.to}`;
          await measure(`GET /api/reports/${name} (${preset})`, 'http', dashboard, () =>
            get(`/api/reports/${name}?${q}`),
          );
        }
    };
    // Dashboard calls first, so the peak RSS they reach is read before any download-only call.
    await periodCalls(true);
    // The mileage page's drill-down: trips of one vehicle in one month (dashboard/js/mileage.js).
    const [y, m] = today.split('-').map(Number) as [number, number];
    const lastMonth = m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
    const probe = await db.connect();
    const vid = (
      await probe.runAndReadAll('SELECT min(vehicle_id)::INTEGER AS v FROM vehicles')
    ).getRowObjectsJS()[0]?.v;
    probe.closeSync();
    await measure(`GET /api/reports/trips (1 vehicle, ${lastMonth})`, 'http', true, () =>
      get(`/api/reports/trips?vehicle=${String(vid)}&month=${lastMonth}`),
    );
    const dashboardPeakRssMb = peakRssMb();
    sampler.phase('download-only JSON');
    await periodCalls(false);
    // The largest page a client may ask for (MAX_PAGE_ROWS), of the largest reports: streamed by
    // the server; read here without parsing (this process is the server's too).
    const q = presets(today).last_3_months!;
    for (const name of LARGE_PAGES)
      await measure(`GET /api/reports/${name}?limit=${MAX_PAGE_ROWS} (last_3_months)`, 'http', false, () =>
        getLarge(`/api/reports/${name}?from=${q.from}&to=${q.to}&limit=${MAX_PAGE_ROWS}`),
      );
    say(`serve: peak RSS ${round(peakRssMb())} MB`);
    const mem = sampler.stop();
    for (const l of describeMem(mem)) say(l);
    return { latencies, peakRssMb: peakRssMb(), dashboardPeakRssMb, baselineRssMb, ...(mem ? { mem } : {}) };
  } finally {
    await srv.close();
    db.close();
  }
}

/**
 * Every report query in-process (`runReport`, whole result as JS rows), last 3 months: the time
 * of each query, in a process of its own (holding 221 k trips as row objects is this bench's doing,
 * not the server's: the server streams a large page).
 */
export async function queriesChild(a: {
  dbPath: string;
  nowMs: number;
  timezone: string;
  iterations: number;
}): Promise<{ latencies: Latency[]; peakRssMb: number }> {
  const db = await openDatabase(a.dbPath, { readOnly: true });
  const con = await db.connect();
  const latencies: Latency[] = [];
  const measure = timer(latencies, a.iterations);
  try {
    const range = presets(localDate(a.nowMs, a.timezone)).last_3_months!;
    const scope = { account: ACCOUNT, zone: a.timezone, nowMs: a.nowMs };
    for (const name of REPORT_NAMES) {
      const def = getReport(name)!;
      const params = parseReportParams({ from: range.from, to: range.to }, def, scope);
      await measure(
        `query ${name} (last_3_months)`,
        'query',
        false,
        async () => (await runReport(con, def, scope, params)).rows.length,
      );
    }
    return { latencies, peakRssMb: peakRssMb() };
  } finally {
    con.closeSync();
    db.close();
  }
}

/**
 * Seeds the database (or reuses the cached seed, seedCachePath), copies it into a temp dir (the
 * load test writes a second account into it), then (with `serve`) times the dashboard calls on it.
 */
export async function measureReports(
  vehicles: number,
  days: number,
  iterations: number,
  serve = true,
  queries = true,
) {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-reports-'));
  const cache = seedCachePath(vehicles, days);
  say(
    `reports: seeding ${vehicles} vehicles × ${days} days through appendRows/upsertRows (or reusing ${cache})`,
  );
  const cached = await runChild<SeedResult>('seed', { vehicles, days, path: cache });
  const total = Object.values(cached.counts).reduce((x, y) => x + y, 0);
  say(
    `reports: ${cached.reused ? 'reused a seed of' : 'seeded'} ${total} rows in ${round(cached.seedMs / 1000, 1)} s (generate ${round(cached.generateMs / 1000, 1)} s)`,
  );
  const c0 = performance.now();
  const dbPath = join(dir, 'reports.duckdb');
  copyFileSync(cache, dbPath);
  say(`reports: copied the seed in ${round((performance.now() - c0) / 1000, 1)} s`);
  const seed = { ...cached, dbPath };
  const args = { dbPath, nowMs: seed.nowMs, timezone: seed.timezone, iterations };
  let served: ServeResult | null = null;
  if (serve) {
    served = await runChild<ServeResult>('serve', args);
  }
  if (served && queries) {
    const q = await runChild<{ latencies: Latency[]; peakRssMb: number }>('queries', args);
    served.latencies.push(...q.latencies);
    served.queriesPeakRssMb = q.peakRssMb;
  }
  return { dir, seed, serve: served };
}

export function reportFigures(
  seed: SeedResult,
  serve: ServeResult,
  vehicles: number,
  days: number,
): Figure[] {
  const B = '4 reports';
  const c = seed.counts;
  const total = Object.values(c).reduce((x, y) => x + y, 0);
  const out: Figure[] = [
    fig(B, 'database', `${vehicles} veh × ${days} d`, '', {
      note: `${c.trips ?? 0} trips, ${c.odometer_windows ?? 0} odometer windows, ${c.geofence_visits ?? 0} toll visits, ${c.carpool_bookings ?? 0} bookings, ${c.ledger ?? 0} ledger rows`,
    }),
    fig(B, 'seed through appendRows', total / (seed.seedMs / 1000), 'rows/s', {
      note: `${total} rows in ${round(seed.seedMs / 1000, 1)} s${seed.reused ? ', seeded by an earlier run (bench/results/seed/)' : ''}`,
    }),
  ];
  const dash = serve.latencies.filter((l) => l.dashboard);
  // a failed call counts as missed (NaN: Math.max answers NaN, which passes no target)
  const worst = Math.max(...dash.map((l) => l.p95));
  const worstCold = Math.max(...dash.map((l) => l.cold));
  for (const l of serve.latencies)
    out.push(
      fig(
        B,
        `${l.name} p50 / p95 / cold`,
        `${round(l.p50, 1)} / ${round(l.p95, 1)} / ${round(l.cold, 1)}`,
        'ms',
        {
          ...(l.dashboard
            ? { target: 'p95 ≤ 100, cold ≤ 1,000', pass: l.p95 <= 100 && l.cold <= COLD_TARGET_MS }
            : {}),
          note: l.error
            ? `FAILED: ${l.error.slice(0, 160)}`
            : `${l.rows} rows${l.kind === 'http' && !l.dashboard ? ', download only' : ''}`,
        },
      ),
    );
  out.push(
    fig(B, 'worst dashboard call p95', worst, 'ms', { target: '≤ 100', pass: worst <= 100 }),
    fig(B, 'worst dashboard call cold (first after the server starts)', worstCold, 'ms', {
      target: '≤ 1,000',
      pass: worstCold <= COLD_TARGET_MS,
    }),
    fig('6 memory', 'serving peak RSS, dashboard calls', serve.dashboardPeakRssMb, 'MB', {
      target: '≤ 512',
      pass: serve.dashboardPeakRssMb <= 512,
      note: `${round(serve.baselineRssMb)} MB at start`,
    }),
    fig('6 memory', 'serving peak RSS, all calls', serve.peakRssMb, 'MB', {
      target: '≤ 512',
      pass: serve.peakRssMb <= 512,
      note: `incl. download-only trips JSON and pages of ${MAX_PAGE_ROWS} rows of ${LARGE_PAGES.join(', ')}`,
    }),
  );
  if (serve.queriesPeakRssMb !== undefined)
    out.push(
      fig(
        '6 memory',
        'in-process report queries (whole results as JS rows; not a server)',
        serve.queriesPeakRssMb,
        'MB',
        {
          note: 'peak RSS of the process that times `query …` above',
        },
      ),
    );
  return out;
}

export const dashboardP95 = (s: ServeResult) =>
  Math.max(...s.latencies.filter((l) => l.dashboard).map((l) => l.p95));
/** The slowest dashboard call's first (uncached) answer. */
export const dashboardCold = (s: ServeResult) =>
  Math.max(...s.latencies.filter((l) => l.dashboard).map((l) => l.cold));
