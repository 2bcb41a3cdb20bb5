/**
 * The docs stay true to the tree: every folder of src/ is in architecture.md's table, every file a
 * doc cites exists, every local link resolves, and the README stays short with the two sections a
 * newcomer looks for, listing every command the CLI dispatches.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli.ts';
import { REPORT_NAMES } from '../src/reports/registry.ts';
import { ROOT } from '../scripts/doc-blocks.ts';

/** Docs other branches write (issue 23/24 work); linked from here before they land. */
const WRITTEN_ELSEWHERE = new Set(['api-differences.md', 'monitoring.md', 'workers.md']);

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

describe('the docs', () => {
  it('name every folder of src/ in architecture.md', () => {
    const arch = read('docs/architecture.md');
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((d) => !arch.includes(`| \`src/${d}/\` |`))).toEqual([]);
  });

  it('cite only files that exist', () => {
    const missing: string[] = [];
    for (const doc of docs) {
      for (const m of read(doc).matchAll(
        /`((?:src|test|queries|dashboard|scripts|bench|deploy)\/[A-Za-z0-9_./-]+)`/g,
      )) {
        const path = m[1]!.replace(/[.,]$/, '');
        if (!existsSync(join(ROOT, path))) missing.push(`${doc}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('link only to files that exist (or that another branch writes)', () => {
    const broken: string[] = [];
    for (const doc of docs) {
      for (const m of read(doc).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target) || WRITTEN_ELSEWHERE.has(target.replace(/^docs\//, ''))) continue;
        if (!existsSync(join(ROOT, dirname(doc), target))) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = read('README.md');

  it('is at most 200 lines, with "Point it at your account" and "When something goes wrong" as headings', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const headings = [...readme.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]);
    expect(headings).toContain('Point it at your account');
    expect(headings).toContain('When something goes wrong');
  });

  it('lists every command the CLI dispatches in its command table', () => {
    const rows = [...readme.matchAll(/^\| `([a-z-]+)[ `]/gm)].map((m) => m[1]);
    expect(Object.keys(COMMANDS).filter((c) => !rows.includes(c))).toEqual([]);
  });

  it('lists every report of the registry, each on a line of its own', () => {
    const rows = [...readme.matchAll(/^\| `([a-z_]+)` \| /gm)].map((m) => m[1]);
    expect(REPORT_NAMES.filter((r) => !rows.includes(r))).toEqual([]);
  });
});
