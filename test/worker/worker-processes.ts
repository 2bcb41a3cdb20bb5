/**
 * `fleetsync worker` child processes for the worker tests (workers.int, schedule.int,
 * alerts-outage.int): each one's stderr kept line by line, its exit code, and a wait that shows the
 * last lines of every worker when it times out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

export interface WorkerProcess {
  child: ChildProcess;
  log: string[];
  /** The exit code (null: ended by a signal). */
  exit: Promise<number | null>;
}

export interface WorkerProcesses {
  readonly list: WorkerProcess[];
  /**
   * Starts a worker with the pool's environment and `extra` over it; `fileLimitKib`: under the
   * shell's `ulimit -f` (KiB), as test/reliability/checkpoint-limit.int.test.ts runs the CLI.
   */
  start(extra?: Record<string, string>, fileLimitKib?: number): WorkerProcess;
  /** Every line of every worker (started so far) that matches. */
  lines(re: RegExp): string[];
  until(cond: () => boolean, ms: number, what: string): Promise<void>;
  killAll(signal?: NodeJS.Signals): void;
}

/** Workers started with `env()` (read at each start, so it may be set in a beforeAll). */
export function workerProcesses(env: () => Record<string, string>): WorkerProcesses {
  const list: WorkerProcess[] = [];
  return {
    list,
    start(extra = {}, fileLimitKib) {
      const cmd = [process.execPath, '--import', 'tsx', CLI, 'worker'];
      const [file, args] =
        fileLimitKib === undefined
          ? [cmd[0]!, cmd.slice(1)]
          : ['sh', ['-c', `ulimit -f ${fileLimitKib} && exec "$@"`, 'sh', ...cmd]];
      const child = spawn(file, args, {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env(), ...extra },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const w: WorkerProcess = {
        child,
        log: [],
        exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
      };
      let buf = '';
      child.stderr!.on('data', (c: Buffer) => {
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          w.log.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
      list.push(w);
      return w;
    },
    lines: (re) => list.flatMap((w) => w.log.filter((l) => re.test(l))),
    async until(cond, ms, what) {
      const end = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > end)
          throw new Error(
            `timed out waiting for ${what}\n${list.map((w) => w.log.slice(-15).join('\n')).join('\n---\n')}`,
          );
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    killAll(signal = 'SIGKILL') {
      for (const w of list) w.child.kill(signal);
    },
  };
}

/**
 * The environment of workers on simulator accounts (`FLEETSYNC_CONFIG`, written to `dir`, one
 * account per simulator, password "demo-main"), queue `queueUrl`, 1 s rate windows, and the
 * queue's timers in seconds rather than minutes (retry delay, maintenance, poll).
 */
export function simAccountsEnv(
  dir: string,
  queueUrl: string,
  accounts: readonly { name: string; baseUrl: string; zone: string }[],
): Record<string, string> {
  const config = join(dir, 'accounts.json');
  writeFileSync(
    config,
    JSON.stringify({
      accounts: accounts.map((a) => ({
        account: a.name,
        base_url: a.baseUrl,
        username: 'demo',
        password_env: 'SIM_PASSWORD',
        timezone: a.zone,
      })),
    }),
  );
  return {
    FLEETSYNC_QUEUE_URL: queueUrl,
    FLEETSYNC_CONFIG: config,
    SIM_PASSWORD: 'demo-main',
    FLEETSYNC_DATA_DIR: join(dir, 'data'),
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    FLEETSYNC_JOB_RETRY_DELAY_SECONDS: '1',
    FLEETSYNC_QUEUE_MAINTENANCE_SECONDS: '1',
    FLEETSYNC_QUEUE_POLL_SECONDS: '0.5',
  };
}
