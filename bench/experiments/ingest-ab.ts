/**
 * The ingest bench's write calls (bench/ingest.ts) on several checkouts, alternating, each run in
 * its own process with that checkout's own generator, schema and write path, wall and CPU time
 * (process.cpuUsage: DuckDB's threads included) per call:
 * `node --import tsx bench/experiments/ingest-ab.ts [rounds] [minTrips] <checkout> <checkout> …`
 * (a checkout is a worktree's root, e.g. a detached one of an older commit). One line per run.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchRows, benchWrites, type IngestCheckout } from '../ingest.ts';

interface Timing {
  wallMs: number;
  cpuMs: number;
}

async function child(root: string, minTrips: number): Promise<Record<string, unknown>> {
  const imp = (p: string) => import(pathToFileURL(join(root, p)).href);
  // that checkout's generator, write path, windows and world
  const loaded = await Promise.all(
    [
      'src/simulator/generate.ts',
      'src/store/db.ts',
      'src/store/write.ts',
      'src/sync/windows.ts',
      'bench/world.ts',
    ].map(imp),
  );
  // each name IngestCheckout takes is exported by one of them only
  const checkout = Object.assign({}, ...loaded) as IngestCheckout & {
    openDatabase: typeof import('../../src/store/db.ts').openDatabase;
  };
  const { openDatabase } = checkout;
  // The rows and write calls bench/ingest.ts makes (this checkout's builder, that checkout's
  // generator and write path).
  const { trips, odometer } = benchRows(minTrips, checkout);
  const writes = benchWrites({ trips, odometer }, checkout);
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-ingest-ab-'));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const fresh = async (name: string, fn: (con: any) => Promise<unknown>): Promise<Timing> => {
    const db = await openDatabase(join(dir, `${name}.duckdb`));
    const con = await db.connect();
    try {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn(con);
      const wallMs = performance.now() - t0;
      const c = process.cpuUsage(c0);
      return { wallMs, cpuMs: (c.user + c.system) / 1000 };
    } finally {
      con.closeSync();
      db.close();
    }
  };
  try {
    const upsert = await fresh('upsert', writes.upsert);
    const append = await fresh('append', writes.append);
    const odo = await fresh('odometer', writes.odometer);
    return { trips: trips.length, odometer: odometer.length, upsert, append, odo };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'child') {
  const r = await child(resolve(process.argv[3]!), Number(process.argv[4]));
  process.stdout.write(JSON.stringify(r) + '\n');
} else {
  const rounds = Number(process.argv[2] ?? 3);
  const minTrips = Number(process.argv[3] ?? 1_000_000);
  const roots = process.argv.slice(4);
  const k = (n: number, ms: number) => `${Math.round(n / (ms / 1000) / 100) / 10} k`;
  for (let r = 0; r < rounds; r++)
    for (const root of roots) {
      const l0 = loadavg()[0]!.toFixed(1);
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', new URL(import.meta.url).pathname, 'child', root, String(minTrips)],
        { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      const x = JSON.parse(out.trim().split('\n').at(-1)!) as {
        trips: number;
        odometer: number;
        upsert: Timing;
        append: Timing;
        odo: Timing;
      };
      const head = (x.trips + x.odometer) / ((x.upsert.wallMs + x.odo.wallMs) / 1000);
      const headCpu = (x.trips + x.odometer) / ((x.upsert.cpuMs + x.odo.cpuMs) / 1000);
      console.log(
        `round ${r} ${root}: headline ${Math.round(head / 100) / 10} k rows/s wall, ${Math.round(headCpu / 100) / 10} k per CPU s; ` +
          `upsert ${k(x.trips, x.upsert.wallMs)} (cpu ${k(x.trips, x.upsert.cpuMs)}), append ${k(x.trips, x.append.wallMs)} (cpu ${k(x.trips, x.append.cpuMs)}), ` +
          `odometer ${k(x.odometer, x.odo.wallMs)} (cpu ${k(x.odometer, x.odo.cpuMs)}); ${x.trips} + ${x.odometer} rows; load ${l0} → ${loadavg()[0]!.toFixed(1)}`,
      );
    }
}
