/**
 * The three test groups of vitest.config.ts (unit, integration, browser) partition the test
 * files: a file in no group would never run under `npm test`, a file in two would run twice and
 * leave `npm run test:unit` slower than it says. The globs are matched by vitest itself.
 */
import { readdirSync } from 'node:fs';
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
