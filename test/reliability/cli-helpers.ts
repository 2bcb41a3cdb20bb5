/**
 * The real CLI as a child process (node --import tsx src/cli.ts), for exit codes, stdout/stderr
 * and SIGKILL tests. `runCli` waits for the exit; `spawnCli` hands back the child with a line
 * watcher so a test can act (kill, connect) when a given line appears.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: only what is given (plus PATH/HOME), so the developer's env never leaks in. */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, FLEETSYNC_LOG_LEVEL: 'info', ...env };
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

export function spawnCli(args: string[], env: Record<string, string>): SpawnedCli {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: cliEnv(env),
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

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return spawnCli(args, env).exited;
}
