/**
 * Load test (issue 16): the real server (`startServer`) in a child on the seeded database, driven
 * over loopback by autocannon from this process, bounded in connections and seconds.
 *
 * Phase 1: `connections` clients replay the overview page's calls for the default period (last 3
 * months): GET /api/status, the filter bar's vehicles, kpis, trend by week, top vehicles.
 * Phase 2: the same, while `downloads` trips CSV downloads (a full year; `--size large` 30 days) run and a sync (POST
 * /api/sync: a second account from a simulator here, written to the same database) runs; a
 * probe times GET /api/status meanwhile. Every download is compared byte for byte with what
 * `fleetsync export` (the CLI, run after the server stopped) writes for the same range.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { createFleetClient } from '../src/api/client.ts';
import { silentLogger } from '../src/log.ts';
import type { RunSummary } from '../src/sync/types.ts';
import { addDays, localDate } from '../src/time.ts';
import { syncAccount } from '../src/wiring.ts';
import { describeMem, memorySampler, type MemPhase } from './mem.ts';
import { fig, peakRssMb, percentile, round, say, startChild, waitForStop, type Figure } from './lib.ts';
import { serveSeeded } from './reports.ts';
import { ACCOUNT } from './seed.ts';
import { clockOf, startWorld, type Limits, type WorldArgs } from './world.ts';

export const SYNC_ACCOUNT = 'bench-sync';

interface ServeArgs {
  dbPath: string;
  nowMs: number;
  timezone: string;
  world: WorldArgs;
}

interface ServeOut {
  peakRssMb: number;
  baselineRssMb: number;
  /** BENCH_MEM=1: what the RSS was made of in each phase (bench/mem.ts). */
  mem?: Record<string, MemPhase>;
  /** The server's event-loop delay in each phase (ms): how long a ready answer could wait to be sent. */
  loopDelay: Record<string, { p50: number; p95: number; max: number }>;
}

/** Child: the server, with a sync engine for the second account, until stdin ends. */
export async function loadServeChild(a: ServeArgs): Promise<ServeOut> {
  const baselineRssMb = peakRssMb();
  const w = a.world;
  const syncNow = clockOf(w);
  const client = createFleetClient({
    baseUrl: w.baseUrl,
    username: 'demo',
    password: 'demo-main',
    timezone: w.timezone,
    windowMs: w.windowMs,
    limits: w.limits,
    now: syncNow,
  });
  // POST /api/sync runs a real sync of a second account into the served database.
  const { db, srv } = await serveSeeded(a, {
    runSync: (trigger): Promise<RunSummary> =>
      syncAccount(
        {
          db,
          client,
          account: SYNC_ACCOUNT,
          timezone: w.timezone,
          baseUrl: w.baseUrl,
          windowMs: w.windowMs,
          limits: w.limits,
          log: silentLogger,
          now: syncNow,
        },
        { trigger, fromDay: w.firstDay, toDay: w.lastDay },
      ),
  });
  const sampler = memorySampler(process.env.BENCH_MEM ? await db.connect() : null);
  sampler.phase('ready');
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const loopDelay: ServeOut['loopDelay'] = {};
  let loopPhase = 'ready';
  const closeLoopPhase = () => {
    if (loop.count > 0)
      loopDelay[loopPhase] = {
        p50: loop.percentile(50) / 1e6,
        p95: loop.percentile(95) / 1e6,
        max: loop.max / 1e6,
      };
    loop.reset();
  };
  loop.enable();
  // `PHASE <name>` lines from the parent name the phase the samples belong to.
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => {
    input += d;
    let nl;
    while ((nl = input.indexOf('\n')) >= 0) {
      const m = /^PHASE (.+)$/.exec(input.slice(0, nl));
      if (m) {
        sampler.phase(m[1]!);
        closeLoopPhase();
        loopPhase = m[1]!;
      }
      input = input.slice(nl + 1);
    }
  });
  process.stdout.write(`READY ${JSON.stringify({ port: srv.port })}\n`);
  await waitForStop();
  closeLoopPhase();
  loop.disable();
  const mem = sampler.stop();
  for (const l of describeMem(mem)) say(`load server: ${l}`);
  await srv.close();
  await client.close();
  db.close();
  return { peakRssMb: peakRssMb(), baselineRssMb, loopDelay, ...(mem ? { mem } : {}) };
}

export interface LoadPhase {
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  non2xx: number;
  timeouts: number;
}

export interface LoadResult {
  connections: number;
  period: { from: string; to: string };
  calls: string[];
  phase1: LoadPhase;
  phase2: LoadPhase;
  /** `floor*`: an unknown API path asked between the probes (a 404: no statement, no file). */
  statusProbe: { n: number; p50: number; p95: number; errors: number; floorP50: number; floorP95: number };
  downloads: { status: number; bytes: number; ms: number; equal: boolean; retryAfter: string | null }[];
  exportRange: { from: string; to: string };
  sync: { status: number; outcome: string | null; wallMs: number; requests: number | null };
  serve: ServeOut;
}

/** The overview page's calls for its default period (dashboard/js/overview.js, filters.js). */
function overviewCalls(today: string): { from: string; to: string; paths: string[] } {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  const [yy, mm] = m <= 2 ? [y - 1, m + 10] : [y, m - 2];
  const from = `${yy}-${String(mm).padStart(2, '0')}-01`;
  const q = `from=${from}&to=${today}`;
  return {
    from,
    to: today,
    paths: [
      '/api/status',
      '/api/reports/vehicles?limit=1000&offset=0',
      `/api/reports/kpis?${q}`,
      `/api/reports/trend?${q}&grain=week`,
      `/api/reports/top_vehicles?${q}`,
    ],
  };
}

async function cannon(base: string, paths: string[], connections: number, seconds: number) {
  const times: number[] = [];
  const r = await new Promise<autocannon.Result>((resolve, reject) => {
    const inst = autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        timeout: 30,
        requests: paths.map((path) => ({ method: 'GET' as const, path })),
      },
      (err, result) => (err ? reject(err as Error) : resolve(result)),
    );
    inst.on('response', (_c, _code, _bytes, ms) => times.push(ms));
  });
  times.sort((x, y) => x - y);
  return {
    seconds,
    requests: r.requests.total,
    rps: r.requests.total / seconds,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    errors: r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
  } satisfies LoadPhase;
}

async function downloadHash(url: string) {
  const t0 = performance.now();
  const res = await request(url);
  const hash = createHash('sha256');
  let bytes = 0;
  let error = '';
  for await (const chunk of res.body) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    if (res.statusCode !== 200 && error.length < 300) error += String(chunk).slice(0, 300);
  }
  if (error) say(`load: download answered HTTP ${res.statusCode}: ${error}`);
  return {
    status: res.statusCode,
    bytes,
    ms: performance.now() - t0,
    sha: hash.digest('hex'),
    retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
  };
}

/**
 * `GET /api/status` every 20 ms from a process of its own until `done` settles: the bench's own
 * process runs the simulator, autocannon's 16 clients and the downloads' hashing, so a probe timed
 * on its event loop measured that loop's delays as much as the server's answer.
 */
async function probeStatus(base: string, done: Promise<unknown>) {
  // Each round also asks for an unknown API path: a 404 with no statement, no file, no
  // computation, whose time is the floor any answer of this server meets on this machine then.
  // (Not a static file: those are read through libuv's thread pool, which the downloads' file
  // streams hold, so a 7.6 kB stylesheet took p50 44 ms, p95 146 ms meanwhile.)
  const script = `
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const times = [], floor = [];
    let errors = 0, stop = false;
    process.stdin.on('data', () => (stop = true));
    const once = (path, into, status) => new Promise((resolve) => {
      const t0 = performance.now();
      http.get(${JSON.stringify(base)} + path, { agent }, (res) => {
        res.resume();
        res.on('end', () => { if (res.statusCode !== status) errors++; into.push(performance.now() - t0); resolve(); });
      }).on('error', () => { errors++; into.push(performance.now() - t0); resolve(); });
    });
    (async () => {
      while (!stop) {
        await once('/api/status', times, 200);
        await new Promise((r) => setTimeout(r, 10));
        await once('/api/no-such-call', floor, 404);
        await new Promise((r) => setTimeout(r, 10));
      }
      process.stdout.write(JSON.stringify({ times, floor, errors }));
      agent.destroy();
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => (out += d));
  const closed = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  await done.catch(() => undefined);
  child.stdin.end('stop\n');
  await closed;
  const { times, floor, errors } = JSON.parse(out) as { times: number[]; floor: number[]; errors: number };
  times.sort((x, y) => x - y);
  floor.sort((x, y) => x - y);
  return {
    n: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    errors,
    floorP50: percentile(floor, 50),
    floorP95: percentile(floor, 95),
  };
}

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** `fleetsync export trips --from --to --out FILE`, the real CLI; the file's SHA-256. */
function cliExport(dbPath: string, timezone: string, from: string, to: string, out: string) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'export', 'trips', '--from', from, '--to', to, '--out', out],
      {
        env: { ...process.env, FLEETSYNC_DB: dbPath, FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: timezone },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(createHash('sha256').update(readFileSync(out)).digest('hex'))
        : reject(new Error(`fleetsync export exited ${code}: ${err.slice(0, 500)}`)),
    );
  });
}

export async function measureLoad(
  seed: { dbPath: string; nowMs: number; timezone: string },
  o: {
    connections: number;
    seconds: number;
    downloads: number;
    /** Each download: the trips CSV of the `downloadDays` days to yesterday. */
    downloadDays: number;
    syncFleet: { vehicles: number; days: number };
    limits: Limits;
  },
): Promise<LoadResult> {
  const world = await startWorld(o.syncFleet.vehicles, o.syncFleet.days, o.limits);
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-load-'));
  const child = startChild<{ port: number }, ServeOut>('loadServe', { ...seed, world: world.args });
  let serve: ServeOut | null = null;
  try {
    const { port } = await child.ready;
    const base = `http://127.0.0.1:${port}`;
    const today = localDate(seed.nowMs, seed.timezone);
    const calls = overviewCalls(today);
    say(`load: phase 1, ${o.connections} clients × ${o.seconds} s on the overview calls`);
    // One pass first, so both phases see a warm server (connections, macros).
    for (const p of calls.paths) await (await request(`${base}${p}`)).body.dump();
    child.send('PHASE overview calls');
    const phase1 = await cannon(base, calls.paths, o.connections, o.seconds);
    say(
      `load: phase 1 ${round(phase1.rps)} req/s, p95 ${round(phase1.p95)} ms; phase 2 with ${o.downloads} downloads and a sync`,
    );
    const exportRange = { from: addDays(today, -o.downloadDays), to: addDays(today, -1) };
    child.send('PHASE downloads + sync');
    const phase2P = cannon(base, calls.paths, o.connections, o.seconds);
    const probeP = probeStatus(base, phase2P);
    const syncP = (async () => {
      const t0 = performance.now();
      const r = await request(`${base}/api/sync`, {
        method: 'POST',
        headers: { 'x-fleetsync-request': '1' },
      });
      const body = (await r.body.json()) as { outcome?: string; requests?: number };
      if (body.outcome !== 'ok') say(`load: the sync answered ${JSON.stringify(body).slice(0, 600)}`);
      return {
        status: r.statusCode,
        outcome: body.outcome ?? null,
        wallMs: performance.now() - t0,
        requests: body.requests ?? null,
      };
    })();
    const url = `${base}/api/reports/trips.csv?from=${exportRange.from}&to=${exportRange.to}`;
    const dls = await Promise.all(Array.from({ length: o.downloads }, () => downloadHash(url)));
    const [phase2, statusProbe, sync] = await Promise.all([phase2P, probeP, syncP]);
    serve = await child.stop();
    for (const [phase, d] of Object.entries(serve.loopDelay))
      say(
        `load server: event-loop delay in "${phase}": p50 ${round(d.p50, 1)} ms, p95 ${round(d.p95, 1)} ms, max ${round(d.max)} ms`,
      );
    say('load: comparing downloads with `fleetsync export`');
    const expected = await cliExport(
      seed.dbPath,
      seed.timezone,
      exportRange.from,
      exportRange.to,
      join(dir, 'trips.csv'),
    );
    return {
      connections: o.connections,
      period: { from: calls.from, to: calls.to },
      calls: calls.paths,
      phase1,
      phase2,
      statusProbe,
      downloads: dls.map(({ sha, ...d }) => ({ ...d, equal: d.status === 200 && sha === expected })),
      exportRange,
      sync,
      serve,
    };
  } finally {
    if (!serve) await child.stop().catch(() => {});
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const loadErrors = (p: LoadPhase) => p.errors + p.non2xx + p.timeouts;

export function loadFigures(r: LoadResult): Figure[] {
  const B = '8 load';
  const c = `${r.connections} clients, overview ${r.period.from}…${r.period.to}`;
  const out: Figure[] = [];
  for (const [label, p] of [
    ['overview calls', r.phase1],
    ['overview calls during downloads + sync', r.phase2],
  ] as const) {
    out.push(
      fig(B, `${label}: p95`, p.p95, 'ms', {
        target: '≤ 250',
        pass: p.p95 <= 250,
        note: `${c}, ${p.seconds} s, p50 ${round(p.p50, 1)}, p99 ${round(p.p99, 1)}`,
      }),
      fig(B, `${label}: throughput`, p.rps, 'req/s', {
        ...(label === 'overview calls' ? { target: '≥ 200', pass: p.rps >= 200 } : {}),
        note: `${p.requests} requests`,
      }),
      fig(B, `${label}: errors`, loadErrors(p), '', {
        target: '0',
        pass: loadErrors(p) === 0,
        note: `${p.errors} socket, ${p.non2xx} non-2xx, ${p.timeouts} timeouts`,
      }),
    );
  }
  const ok = r.downloads.filter((d) => d.equal).length;
  out.push(
    fig(B, 'GET /api/status p95 during downloads + sync', r.statusProbe.p95, 'ms', {
      target: '≤ 50',
      pass: r.statusProbe.p95 <= 50 && r.statusProbe.errors === 0,
      note: `${r.statusProbe.n} probes from a process of their own, p50 ${round(r.statusProbe.p50, 1)}, ${r.statusProbe.errors} errors`,
    }),
    fig(B, 'GET of an unknown API path p95 meanwhile (the floor: a 404)', r.statusProbe.floorP95, 'ms', {
      note: `p50 ${round(r.statusProbe.floorP50, 1)}; what any answer of this server met on this machine then`,
    }),
    ...Object.entries(r.serve.loopDelay)
      .filter(([phase]) => phase !== 'ready')
      .map(([phase, d]) =>
        fig(B, `server event-loop delay p95, ${phase}`, d.p95, 'ms', {
          note: `p50 ${round(d.p50, 1)}, max ${round(d.max)}: a ready answer waits this long to be sent`,
        }),
      ),
    fig(
      B,
      'trips CSV downloads complete and byte-equal to `fleetsync export`',
      `${ok} / ${r.downloads.length}`,
      '',
      {
        target: 'all',
        pass: ok === r.downloads.length,
        note: `${r.exportRange.from}…${r.exportRange.to}; ${r.downloads.map((d) => `${d.status} ${round(d.bytes / 1e6, 1)} MB ${round(d.ms / 1000, 1)} s`).join(', ')}`,
      },
    ),
    fig(B, 'sync during the load (POST /api/sync)', r.sync.outcome ?? `HTTP ${r.sync.status}`, '', {
      target: 'ok',
      pass: r.sync.status === 200 && r.sync.outcome === 'ok',
      note: `${round(r.sync.wallMs / 1000, 1)} s, ${r.sync.requests ?? '?'} requests`,
    }),
    fig('6 memory', 'serving peak RSS under the load test', r.serve.peakRssMb, 'MB', {
      target: '≤ 512',
      pass: r.serve.peakRssMb <= 512,
      note: `${round(r.serve.baselineRssMb)} MB at start; downloads + sync included`,
    }),
  );
  return out;
}
