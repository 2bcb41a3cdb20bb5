/**
 * A vitest reporter beside the default one: at the end of a run, the ten test files that took
 * longest (import, hooks and tests), so the next engineer sees where the suite's time goes.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export const SLOWEST_SHOWN = 10;

/** Every file: [path relative to the root, project, seconds (import, hooks and tests)]. */
function fileTimes(modules: readonly TestModule[], root: string) {
  return modules.map((m) => {
    const d = m.diagnostic();
    const ms =
      d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    return { file: relative(root, m.moduleId), project: m.project.name, s: ms / 1000 };
  });
}

/** The files, slowest first: [path relative to the root, project, seconds]. */
export function slowestFiles(modules: readonly TestModule[], root: string, n = SLOWEST_SHOWN) {
  return fileTimes(modules, root)
    .sort((a, b) => b.s - a.s)
    .slice(0, n);
}

/** The files' seconds added up: what the run would take one file at a time. */
export const summedSeconds = (modules: readonly TestModule[]) =>
  fileTimes(modules, '/').reduce((a, f) => a + f.s, 0);

export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: readonly TestModule[]): void {
    if (modules.length < 2) return;
    const rows = slowestFiles(modules, process.cwd());
    const lines = rows.map((r) => `  ${r.s.toFixed(1).padStart(7)} s  ${r.file} (${r.project})`);
    process.stdout.write(`\nThe ${rows.length} slowest test files:\n${lines.join('\n')}\n`);
    // Files run side by side (vitest.config.ts maxWorkers): the sum is more than the wall time.
    process.stdout.write(
      `All ${modules.length} files: ${summedSeconds(modules).toFixed(1)} s added up (the wall time is vitest's Duration)\n`,
    );
  }
}
