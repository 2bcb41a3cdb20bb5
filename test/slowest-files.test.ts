import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { slowestFiles, summedSeconds } from './helpers/slowest-files.ts';

/** A module as the reporter sees it: its path, project and the parts of its time. */
const mod = (file: string, collect: number, duration: number, project = 'unit') =>
  ({
    moduleId: `/repo/${file}`,
    project: { name: project },
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
    expect(rows[0]).toEqual({ file: 'test/sync/big.int.test.ts', project: 'integration', s: 100 });
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
