/**
 * `npm run bench -- --only workers`: accounts per hour with 1 and 2 `fleetsync worker` processes
 * (real child processes, a real embedded Postgres), six simulator accounts whose limit windows are
 * so short that the work is CPU-bound (the limits never make a worker wait long).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../test/helpers/postgres.ts';
import { fig, round, type Figure } from './lib.ts';

const CLI = new URL('../src/cli.ts', import.meta.url).pathname;
const ACCOUNTS = 6;
const ZONE = 'Australia/Sydney';
const WINDOW_MS = 100; // the shortest window the config accepts

export interface WorkersResult {
  workers: number;
  accounts: number;
  seconds: number;
  perHour: number;
}

async function runWith(workers: number, quick: boolean): Promise<WorkersResult> {
  const pg = await startPostgres();
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-workers-'));
  const sims: ChildProcess[] = [];
  const children: ChildProcess[] = [];
  try {
    const accounts = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      // Each simulator in its own process, as a real API is elsewhere: the workers' CPU is measured.
      const sim = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          CLI,
          'simulate',
          '--port',
          '0',
          '--seed',
          String(200 + i),
          '--vehicles',
          quick ? '5' : '15',
          '--days',
          '30',
          '--end-day',
          '2026-04-20',
          '--window-ms',
          String(WINDOW_MS),
          '--timezone',
          ZONE,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      sims.push(sim);
      const baseUrl = await new Promise<string>((resolve, reject) => {
        let out = '';
        sim.stdout!.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /listening: (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        sim.once('exit', (code) => reject(new Error(`simulator exited (${code}): ${out}`)));
      });
      accounts.push({
        account: `b${i}`,
        base_url: baseUrl,
        username: 'demo',
        password_env: 'SIM_PW',
        timezone: ZONE,
      });
    }
    const config = join(dir, 'accounts.json');
    writeFileSync(config, JSON.stringify({ accounts }));
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      FLEETSYNC_QUEUE_URL: pg.url,
      FLEETSYNC_CONFIG: config,
      SIM_PW: 'demo-main',
      FLEETSYNC_DATA_DIR: join(dir, 'data'),
      FLEETSYNC_LAKE_DIR: join(dir, 'lake'),
      FLEETSYNC_RATE_WINDOW_MS: String(WINDOW_MS),
      FLEETSYNC_QUEUE_POLL_SECONDS: '0.5',
      FLEETSYNC_LOG_LEVEL: 'info',
    };
    let ready = 0;
    let done = 0;
    let last = '';
    const ctl = { ready: () => {}, done: () => {}, fail: (_e: Error) => {} } as {
      ready: () => void;
      done: () => void;
      fail: (e: Error) => void;
    };
    const readyP = new Promise<void>((r, j) => ((ctl.ready = r), (ctl.fail = j)));
    for (let i = 0; i < workers; i++) {
      const c = spawn(process.execPath, ['--import', 'tsx', CLI, 'worker'], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      children.push(c);
      c.stderr!.on('data', (b: Buffer) => {
        const t = b.toString();
        last = t;
        ready += (t.match(/worker ready/g) ?? []).length;
        done += (t.match(/job done/g) ?? []).length;
        if (ready === workers) ctl.ready();
        if (done >= ACCOUNTS) ctl.done();
      });
      c.once('exit', (code) => {
        if (done < ACCOUNTS) ctl.fail(new Error(`a worker exited (${code}) early: ${last}`));
      });
    }
    await readyP;
    const finished = new Promise<void>((r, j) => ((ctl.done = r), (ctl.fail = j)));
    if (done >= ACCOUNTS) ctl.done();
    const t0 = Date.now();
    const q = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'worker', '--enqueue', '--from', '2026-03-22', '--to', '2026-04-20'],
      {
        env,
        stdio: 'ignore',
      },
    );
    await new Promise((r) => q.once('exit', r));
    await finished;
    const seconds = (Date.now() - t0) / 1000;
    return { workers, accounts: ACCOUNTS, seconds, perHour: (ACCOUNTS / seconds) * 3600 };
  } finally {
    for (const c of children) c.kill('SIGKILL');
    for (const s of sims) s.kill('SIGTERM');
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureWorkers(quick: boolean): Promise<WorkersResult[]> {
  return [await runWith(1, quick), await runWith(2, quick)];
}

export function workersFigures(r: WorkersResult[]): Figure[] {
  const [one, two] = r as [WorkersResult, WorkersResult];
  return [
    ...r.map((x) =>
      fig('workers', `accounts per hour, ${x.workers} worker(s)`, round(x.perHour), 'accounts/h', {
        note: `${x.accounts} accounts in ${round(x.seconds, 1)} s, ${WINDOW_MS} ms limit windows (CPU-bound)`,
      }),
    ),
    fig('workers', 'speed-up 2 workers / 1 worker', round(two.perHour / one.perHour, 2), '×', {
      note: '2 cores shared with other processes',
    }),
  ];
}
