/**
 * The order test files start in, when several run at once (vitest.config.ts, docs/architecture.md
 * "Tests"): longest first over all three projects, so the slow integration and browser files
 * start early and the many short unit files fill the workers around them, instead of vitest's
 * default of one project after the other (all browser files side by side, each with a Chromium
 * on the same two cores, and the slowest integration file starting last).
 *
 * "Longest" is the file's duration in vitest's results cache from an earlier run. Files without
 * one (a fresh checkout, a new file) go by group and size: integration and browser files before
 * every timed file, unit files after them.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (s: TestSpecification) => `${s.project.name}:${relative(root, s.moduleId)}`;
    // [tier, how long or how big]: 0 untimed integration/browser, 1 timed, 2 untimed unit.
    const cost = new Map<TestSpecification, [number, number]>(
      files.map((s): [TestSpecification, [number, number]] => {
        const k = key(s);
        const ms = this.ctx.cache.getFileTestResults(k)?.duration;
        const size = this.ctx.cache.getFileStats(k)?.size ?? 0;
        if (ms !== undefined) return [s, [1, ms]];
        return [s, [s.project.name === 'unit' ? 2 : 0, size]];
      }),
    );
    return Promise.resolve(
      [...files].sort((a, b) => {
        const [ta, na] = cost.get(a)!;
        const [tb, nb] = cost.get(b)!;
        return ta - tb || nb - na;
      }),
    );
  }
}
