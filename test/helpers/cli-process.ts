/**
 * The real CLI as a child process (node --import tsx src/cli.ts), for exit codes, stdout/stderr
 * and SIGKILL tests. `runCli` waits for the exit; `spawnCli` hands back the child with a line
 * watcher so a test can act (kill, connect) when a given line appears.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
/** tsx by path, so the CLI also starts in a working directory outside the checkout. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A clean environment: only what is given (plus PATH/HOME), so the developer's env never leaks in
 * (nor a `.env` in the checkout: FLEETSYNC_ENV_FILE=/dev/null unless the test sets it).
 */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    FLEETSYNC_LOG_LEVEL: 'info',
    FLEETSYNC_ENV_FILE: '/dev/null',
    ...env,
  };
}

export interface SpawnedCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first line (stdout or stderr) matching `re`, rejects if the child exits first. */
  waitFor(re: RegExp): Promise<string>;
  /** Called for every complete line, in order (stderr and stdout). */
  onLine(fn: (line: string) => void): void;
  exited: Promise<CliResult>;
}

/**
 * `entry`: the node arguments that start the CLI — the sources through tsx unless given (e.g. a
 * built copy's `bin/fleetsync.js`, as the units start it).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  entry: string[] = ['--import', TSX, CLI],
): SpawnedCli {
  const child = spawn(process.execPath, [...entry, ...args], {
    env: cliEnv(env),
    ...(cwd ? { cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners: ((line: string) => void)[] = [];
  const lineSplitter = () => {
    let buf = '';
    return (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        for (const l of listeners) l(line);
      }
    };
  };
  const outLines = lineSplitter();
  const errLines = lineSplitter();
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    outLines(c);
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    errLines(c);
  });
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    onLine: (fn) => listeners.push(fn),
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const seen = `${out}\n${err}`.split('\n').find((l) => re.test(l));
        if (seen !== undefined) return resolve(seen);
        listeners.push((l) => {
          if (re.test(l)) resolve(l);
        });
        void exited.then((r) =>
          reject(new Error(`the CLI exited (${r.code ?? r.signal}) before ${re}:\n${r.stdout}\n${r.stderr}`)),
        );
      }),
    exited,
  };
}

export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
  entry?: string[],
): Promise<CliResult> {
  return spawnCli(args, env, cwd, entry).exited;
}
