/**
 * The three test groups of vitest.config.ts (unit, integration, browser) partition the test
 * files: a file in no group would never run under `npm test`, a file in two would run twice and
 * leave `npm run test:unit` slower than it says. The globs are matched by vitest itself.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest, type Vitest } from 'vitest/node';

const ROOT = resolve(import.meta.dirname, '..');
const GROUPS = ['unit', 'integration', 'browser'];

/** Every file under test/ whose name says it is a test (`.test.` or `.spec.`, any extension). */
function testFiles(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(test|spec)\.[cm]?[jt]sx?$/.test(f))
    .map((f) => join(ROOT, 'test', f))
    .sort();
}

let vitest: Vitest;
beforeAll(async () => {
  vitest = await createVitest('test', { root: ROOT, watch: false, reporters: [] });
});
afterAll(async () => {
  await vitest?.close();
});

describe('test groups', () => {
  it('are unit, integration and browser', () => {
    expect(vitest.projects.map((p) => p.name).sort()).toEqual([...GROUPS].sort());
  });

  it('put every test file in exactly one group', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(50);
    const misplaced = files
      .map((f) => ({
        file: f.slice(ROOT.length + 1),
        groups: vitest.projects.filter((p) => p.matchesTestGlob(f)).map((p) => p.name),
      }))
      .filter((x) => x.groups.length !== 1);
    expect(misplaced).toEqual([]);
  });

  it('go by the file name: *.int.test.ts is integration, *.browser.test.ts browser, else unit', () => {
    const groupOf = (rel: string) =>
      vitest.projects.filter((p) => p.matchesTestGlob(join(ROOT, rel))).map((p) => p.name);
    expect(groupOf('test/store/x.test.ts')).toEqual(['unit']);
    expect(groupOf('test/sync/x.int.test.ts')).toEqual(['integration']);
    expect(groupOf('test/server/x.browser.test.ts')).toEqual(['browser']);
    expect(groupOf('test/x.spec.ts')).toEqual([]);
  });
});

/**
 * What a unit file may not leave behind: the unit project shares one process among many files
 * (vitest.config.ts `isolate: false`), so a module mock, a stubbed global or variable, fake
 * timers, a changed working directory or an environment variable set by one file would be seen by
 * the files after it. A file that needs one is an integration file (isolated), or restores it.
 */
const LEAKS: [RegExp, string][] = [
  [/\bvi\.(do)?mock\(/, 'a module mock'],
  [/\bvi\.stub(Env|Global)\(/, 'a stubbed variable or global'],
  [/\buseFakeTimers\(/, 'fake timers'],
  [/\bprocess\.chdir\(/, 'a changed working directory'],
  [
    /\bprocess\.env(\.\w+|\[[^\]]+\])\s*(=[^=]|\?\?=|\|\|=)|\bdelete process\.env\b/,
    'an environment variable set',
  ],
];
const leaksIn = (text: string) =>
  text
    .split('\n')
    .flatMap((line, i) => LEAKS.filter(([re]) => re.test(line)).map(([, what]) => `${i + 1}: ${what}`));

describe('unit files in one process', () => {
  it('the check finds each kind of leftover', () => {
    const sample = [
      "vi.mock('../src/log.ts');",
      "vi.stubEnv('TZ', 'UTC');",
      'vi.useFakeTimers();',
      "process.chdir('/tmp');",
      "process.env.FLEETSYNC_DB = 'x';",
      "delete process.env['TZ'];",
      "const db = process.env.FLEETSYNC_DB === 'x';",
    ].join('\n');
    expect(leaksIn(sample)).toEqual([
      '1: a module mock',
      '2: a stubbed variable or global',
      '3: fake timers',
      '4: a changed working directory',
      '5: an environment variable set',
      '6: an environment variable set',
    ]);
  });

  it('leave no module mock, stub, fake timer, working directory or environment variable behind', () => {
    const unit = vitest.projects.find((p) => p.name === 'unit')!;
    const files = testFiles().filter((f) => unit.matchesTestGlob(f) && !f.endsWith('test-groups.test.ts'));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) =>
      leaksIn(readFileSync(f, 'utf8')).map((l) => `${f.slice(ROOT.length + 1)}:${l}`),
    );
    expect(found).toEqual([]);
  });
});
