import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import {
  cpuWithChildren,
  failedTests,
  slowestFiles,
  summedCpu,
  summedSeconds,
} from './helpers/slowest-files.ts';

/** A module as the reporter sees it: its path, project and the parts of its time. */
const mod = (file: string, collect: number, duration: number, project = 'unit', cpuSeconds?: number) =>
  ({
    moduleId: `/repo/${file}`,
    project: { name: project },
    meta: () => (cpuSeconds === undefined ? {} : { cpuSeconds }),
    diagnostic: () => ({
      environmentSetupDuration: 0,
      prepareDuration: 0,
      collectDuration: collect,
      setupDuration: 0,
      duration,
    }),
  }) as unknown as TestModule;

describe('the slowest test files printed at the end of a run', () => {
  it('ranks files by import plus tests, slowest first, and keeps the ten slowest', () => {
    const modules = Array.from({ length: 12 }, (_, i) => mod(`test/f${i}.test.ts`, 100 * i, 1000));
    modules.push(mod('test/sync/big.int.test.ts', 5_000, 95_000, 'integration'));
    const rows = slowestFiles(modules, '/repo');
    expect(rows).toHaveLength(10);
    // 100 s for the integration file; then f11 (1.1 + 1 s), f10 (1.0 + 1 s), … down to f3.
    expect(rows[0]).toEqual({ file: 'test/sync/big.int.test.ts', project: 'integration', s: 100, cpu: null });
    expect(rows.slice(1).map((r) => r.file)).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3].map((i) => `test/f${i}.test.ts`),
    );
    expect(rows[1]!.s).toBeCloseTo(2.1, 6);
  });

  it('adds up every file, not only the ten shown', () => {
    const modules = Array.from({ length: 12 }, (_, i) => mod(`test/f${i}.test.ts`, 100 * i, 1000));
    modules.push(mod('test/sync/big.int.test.ts', 5_000, 95_000, 'integration'));
    // 12 × 1 s of tests + (0 + 0.1 + … + 1.1) s of imports + 100 s
    expect(summedSeconds(modules)).toBeCloseTo(12 + 6.6 + 100, 6);
  });
});

describe('the CPU seconds of each file', () => {
  it('are shown beside its wall time and added up over the files that have them', () => {
    const modules = [
      mod('test/a.int.test.ts', 0, 90_000, 'integration', 40.5),
      mod('test/b.browser.test.ts', 0, 60_000, 'browser', 70.25),
      mod('test/c.test.ts', 0, 1_000, 'unit'),
    ];
    expect(slowestFiles(modules, '/repo').map((r) => [r.file, r.cpu])).toEqual([
      ['test/a.int.test.ts', 40.5],
      ['test/b.browser.test.ts', 70.25],
      ['test/c.test.ts', null],
    ]);
    expect(summedCpu(modules)).toBeCloseTo(110.75, 6);
    expect(summedCpu([mod('test/c.test.ts', 0, 1_000)])).toBeNull();
  });

  it('are read from /proc: this process and its children waited for, in clock ticks of 1/100 s', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-cpu-'));
    try {
      // proc(5): pid (comm) state ppid … utime stime cutime cstime (fields 14–17); a name with
      // spaces and a parenthesis must not shift the fields
      const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
      fields.splice(11, 4, '1234', '56', '7000', '89');
      writeFileSync(join(dir, 'stat'), `4242 (node (a b)) ${fields.join(' ')}\n`);
      expect(cpuWithChildren(join(dir, 'stat'))).toBeCloseTo(12.34 + 0.56 + 70 + 0.89, 6);
      expect(cpuWithChildren(join(dir, 'missing'))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the failed tests printed at the end of a run', () => {
  /**
   * A module with file-level errors, tests (each [full name, state, error message]) and suites
   * whose hooks failed (each [full name, error message]).
   */
  const withTests = (
    file: string,
    fileErrors: string[],
    tests: [string, string, string?][],
    suites: [string, string][] = [],
  ) =>
    ({
      moduleId: `/repo/${file}`,
      errors: () => fileErrors.map((message) => ({ message })),
      children: {
        *allSuites() {
          for (const [fullName, message] of suites) yield { fullName, errors: () => [{ message }] };
          yield { fullName: 'a suite that passed', errors: () => [] };
        },
        *allTests(state?: string) {
          for (const [fullName, s, message] of tests)
            if (!state || s === state)
              yield { fullName, result: () => ({ state: s, errors: message ? [{ message }] : [] }) };
        },
      },
    }) as unknown as TestModule;

  it('names each failed test with the first line of its error, and a file that failed outside its tests', () => {
    const long = 'x'.repeat(300);
    const modules = [
      withTests(
        'test/a.test.ts',
        [],
        [
          ['ok one', 'passed'],
          ['the page › shows the banner', 'failed', '\nexpected "" to contain "failed"\n  at line 3'],
        ],
      ),
      withTests('test/b.int.test.ts', ['Hook timed out in 60000ms'], [['skipped', 'skipped']]),
      withTests('test/c.test.ts', [], [['long', 'failed', long]]),
    ];
    const lines = failedTests(modules, '/repo');
    expect(lines).toEqual([
      'test/a.test.ts › the page › shows the banner: expected "" to contain "failed"',
      'test/b.int.test.ts: Hook timed out in 60000ms',
      `test/c.test.ts › long: ${'x'.repeat(239)}…`,
    ]);
    expect(failedTests([withTests('test/d.test.ts', [], [['fine', 'passed']])], '/repo')).toEqual([]);
  });

  it("names a suite whose hook failed (its tests skipped, not failed) and the run's unhandled errors", () => {
    const modules = [
      withTests(
        'test/e.int.test.ts',
        [],
        [['the sync › stores', 'skipped']],
        [['the sync', 'Hook timed out in 60000ms.\nIf this is a long-running hook…']],
      ),
    ];
    expect(failedTests(modules, '/repo', [{ message: 'ECONNRESET after the test ended' }])).toEqual([
      'test/e.int.test.ts › the sync: Hook timed out in 60000ms.',
      'unhandled: ECONNRESET after the test ended',
    ]);
  });
});
