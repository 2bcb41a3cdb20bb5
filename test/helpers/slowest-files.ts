/**
 * A vitest reporter beside the default one: at the end of a run, the ten test files that took
 * longest (import, hooks and tests), so the next engineer sees where the suite's time goes, each
 * with the CPU seconds it cost (test/helpers/file-cpu.ts: its process and the children it waited
 * for). Four files share two cores: the wall time of a file says how long it waited beside the
 * others, the CPU what it took from them; the run cannot end before all files' CPU / 2 cores.
 * Then the tests that failed, one line each with the first line of their error: CI keeps only the
 * end of a run's output, and the default reporter names a failure far above it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export const SLOWEST_SHOWN = 10;

/** utime + stime + cutime + cstime of this process (Linux /proc), in seconds; null elsewhere. */
export function cpuWithChildren(stat = '/proc/self/stat'): number | null {
  let text: string;
  try {
    text = readFileSync(stat, 'utf8');
  } catch {
    return null;
  }
  // the fields after the command name, which is in parentheses and may hold spaces
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields 14–17 of proc(5) are f[11]..f[14] here (f[0] is field 3, the state)
  const ticks = [11, 12, 13, 14].reduce((a, i) => a + Number(f[i]), 0);
  return ticks / 100;
}

/** Every file: [path relative to the root, project, seconds (import, hooks and tests), CPU seconds or null]. */
function fileTimes(modules: readonly TestModule[], root: string) {
  return modules.map((m) => {
    const d = m.diagnostic();
    const ms =
      d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    const cpu = m.meta().cpuSeconds;
    return { file: relative(root, m.moduleId), project: m.project.name, s: ms / 1000, cpu: cpu ?? null };
  });
}

/** The files, slowest first: [path relative to the root, project, seconds, CPU seconds]. */
export function slowestFiles(modules: readonly TestModule[], root: string, n = SLOWEST_SHOWN) {
  return fileTimes(modules, root)
    .sort((a, b) => b.s - a.s)
    .slice(0, n);
}

/** The files' seconds added up: what the run would take one file at a time. */
export const summedSeconds = (modules: readonly TestModule[]) =>
  fileTimes(modules, '/').reduce((a, f) => a + f.s, 0);

/** The files' CPU seconds added up (null when no file has them: not Linux, or no setup file). */
export function summedCpu(modules: readonly TestModule[]): number | null {
  const cpus = fileTimes(modules, '/').flatMap((f) => (f.cpu === null ? [] : [f.cpu]));
  return cpus.length ? cpus.reduce((a, c) => a + c, 0) : null;
}

/** The first line of an error's message, at most `max` characters. */
const firstLine = (message: string | undefined, max = 240) => {
  const line = (message ?? '').split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * One line for each failed test (file › test name: first line of the error), each file or suite
 * that failed outside its tests (an import, a `beforeAll` / `afterAll`: its tests are then skipped,
 * not failed) and each error of the run no test owns (unhandled).
 */
export function failedTests(
  modules: readonly TestModule[],
  root: string,
  unhandled: readonly { message?: string }[] = [],
): string[] {
  const out: string[] = [];
  for (const m of modules) {
    const file = relative(root, m.moduleId);
    for (const e of m.errors()) out.push(`${file}: ${firstLine(e.message)}`);
    for (const s of m.children.allSuites())
      for (const e of s.errors()) out.push(`${file} › ${s.fullName}: ${firstLine(e.message)}`);
    for (const t of m.children.allTests('failed'))
      out.push(`${file} › ${t.fullName}: ${firstLine(t.result().errors?.[0]?.message)}`);
  }
  for (const e of unhandled) out.push(`unhandled: ${firstLine(e.message)}`);
  return out;
}

const cpuText = (cpu: number | null) => (cpu === null ? '' : `, ${cpu.toFixed(1)} s CPU`);

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: readonly TestModule[], unhandled: readonly { message?: string }[] = []): void {
    const failed = failedTests(modules, process.cwd(), unhandled);
    if (modules.length >= 2) {
      const rows = slowestFiles(modules, process.cwd());
      const lines = rows.map(
        (r) => `  ${r.s.toFixed(1).padStart(7)} s  ${r.file} (${r.project}${cpuText(r.cpu)})`,
      );
      process.stdout.write(`\nThe ${rows.length} slowest test files:\n${lines.join('\n')}\n`);
      // Files run side by side (vitest.config.ts maxWorkers): the sum is more than the wall time.
      process.stdout.write(
        `All ${modules.length} files: ${summedSeconds(modules).toFixed(1)} s added up${cpuText(summedCpu(modules))} (the wall time is vitest's Duration)\n`,
      );
    }
    if (failed.length)
      process.stdout.write(`\n${failed.length} failed:\n${failed.map((l) => `  ${l}`).join('\n')}\n`);
    // Every file's figures, for a comparison of two runs: FLEETSYNC_TEST_TIMES=<file.json>
    const out = process.env.FLEETSYNC_TEST_TIMES;
    if (out)
      writeFileSync(out, `${JSON.stringify(slowestFiles(modules, process.cwd(), Infinity), null, 1)}\n`);
  }
}
