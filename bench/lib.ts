/**
 * Shared pieces of the benchmarks: result rows (figure, target, pass/miss), the table printer,
 * peak-RSS readings and the child-process runner (each measurement that needs its own memory
 * figure runs in `bench/child.ts`, which prints one `RESULT <json>` line last).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Figure {
  bench: string;
  name: string;
  value: number | string;
  unit: string;
  /** Human target, e.g. "≤ 1.05"; empty when the row is informational. */
  target?: string;
  pass?: boolean;
  note?: string;
}

export const fig = (
  bench: string,
  name: string,
  value: number | string,
  unit: string,
  extra: Partial<Pick<Figure, 'target' | 'pass' | 'note'>> = {},
): Figure => ({ bench, name, value, unit, ...extra });

/** Peak resident set size of this process so far, in MB (VmHWM, else resourceUsage). */
export function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) / 1024;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return process.resourceUsage().maxRSS / 1024;
}

export const round = (n: number, digits = 0) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
interface ChildStart {
  execArgv: string[];
  entry: string;
}
let childStart: Promise<ChildStart> | undefined;
let childReady: ChildStart | undefined;

/**
 * How a child starts (once per bench run): `bench/results/child/child.js` on src/'s build in dist/,
 * as an installed process runs (bin/fleetsync.js; scripts/build.ts builds both), or
 * `--import tsx bench/child.ts` when BENCH_CHILD=tsx (the A/B of docs/performance-log.md "Session 17").
 */
export function prepareChildren(): Promise<ChildStart> {
  childStart ??= (async () => {
    if (process.env.BENCH_CHILD === 'tsx') return { execArgv: ['--import', 'tsx'], entry: CHILD };
    const { buildDist, buildBench } = await import('../scripts/build.ts');
    await buildDist();
    await buildBench();
    return { execArgv: [], entry: fileURLToPath(new URL('./results/child/child.js', import.meta.url)) };
  })().then((start) => (childReady = start));
  return childStart;
}

/** A child's node arguments: how it starts, its heap bound, BENCH_NODE_FLAGS, then the task. */
function childArgv(start: ChildStart, task: string, args: unknown, heapMb?: number): string[] {
  return [
    ...start.execArgv,
    ...(heapMb ? [`--max-old-space-size=${heapMb}`] : []),
    // e.g. BENCH_NODE_FLAGS='--cpu-prof --cpu-prof-dir=bench/results/prof' to profile every child
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean),
    start.entry,
    task,
    JSON.stringify(args),
  ];
}

/**
 * Runs `bench/child.ts <task>` with `args` (JSON on stdin-free argv) in its own Node process and
 * returns the parsed `RESULT` line. Child stderr goes to ours (progress); a non-zero exit throws.
 */
export async function runChild<T>(
  task: string,
  args: unknown,
  opts: { heapMb?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<T> {
  const start = await prepareChildren();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childArgv(start, task, args, opts.heapMb), {
      stdio: ['ignore', 'pipe', 'inherit'],
      ...(opts.env ? { env: opts.env } : {}),
    });
    let out = '';
    // A measurement bounded in time: past `timeoutMs` the child is stopped and the call rejects.
    let timedOut = false;
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, opts.timeoutMs)
      : null;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (timedOut) {
        reject(new ChildTimeout(`bench child ${task} stopped after ${opts.timeoutMs} ms`));
        return;
      }
      const line = out
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) {
        reject(new Error(`bench child ${task} exited with ${code}${line ? '' : ' and no RESULT line'}`));
        return;
      }
      resolve(JSON.parse(line.slice(7)) as T);
    });
  });
}

/** A child stopped at its time limit (runChild `timeoutMs`). */
export class ChildTimeout extends Error {}

/** Progress on stderr, so stdout stays the table and the JSON line. */
export const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

function cell(v: number | string): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US');
  if (Math.abs(v) >= 10) return v.toFixed(1);
  return v.toFixed(3).replace(/\.?0+$/, '') || '0';
}

export function formatTable(rows: readonly Figure[]): string {
  const head = ['bench', 'figure', 'value', 'unit', 'target', 'result'];
  const body = rows.map((r) => [
    r.bench,
    r.name + (r.note ? ` (${r.note})` : ''),
    cell(r.value),
    r.unit,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'pass' : 'MISS',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export interface LiveChild<R, T> {
  /** The child's `READY <json>` line (e.g. the port it listens on). */
  ready: Promise<R>;
  /** Ends the child's stdin (the child then finishes) and resolves with its `RESULT`. */
  stop(): Promise<T>;
  /** A line to the child's stdin (e.g. `PHASE <name>` for its memory sampler). */
  send(line: string): void;
}

/**
 * Like runChild, for a child that serves while the parent measures: it prints `READY <json>`
 * once it listens and finishes when its stdin ends (bench/child.ts `waitForStop`).
 */
export function startChild<R, T>(task: string, args: unknown): LiveChild<R, T> {
  if (!childReady) throw new Error('bench: await prepareChildren() before startChild');
  const child = spawn(process.execPath, childArgv(childReady, task, args), {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: (r: R) => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const ready = new Promise<R>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  const line = (prefix: string) =>
    out
      .split('\n')
      .reverse()
      .find((l) => l.startsWith(prefix));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    out += d;
    const r = line('READY ');
    if (r) onReady(JSON.parse(r.slice(6)) as R);
  });
  const closed = new Promise<T>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const r = line('RESULT ');
      const err = new Error(`bench child ${task} exited with ${code}${r ? '' : ' and no RESULT line'}`);
      onFail(err);
      if (code !== 0 || !r) reject(err);
      else resolve(JSON.parse(r.slice(7)) as T);
    });
  });
  closed.catch(() => {}); // reported by stop() or ready
  return {
    ready,
    stop: () => {
      child.stdin.end();
      return closed;
    },
    send: (l: string) => void child.stdin.write(`${l}\n`),
  };
}

/** In a child started by startChild: resolves when the parent ends our stdin. */
export function waitForStop(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.resume();
    process.stdin.on('end', () => resolve());
    process.stdin.on('close', () => resolve());
  });
}
