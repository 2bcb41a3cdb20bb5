/**
 * Generated parts of hand-written docs: a block between a BEGIN and an END marker that a script
 * rewrites (scripts/gen-*-docs.ts) and a test compares, so the prose stays by hand and the lists
 * cannot drift from the code they come from.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(fileURLToPath(import.meta.url), '..', '..');
export const END = '<!-- END generated -->';

/** `doc` with its generated block (from `begin` to END) replaced by `block`; the markers must be there, once. */
export function replaceBlock(doc: string, begin: string, block: string, what: string): string {
  const a = doc.indexOf(begin);
  const b = doc.indexOf(END, a);
  if (a < 0 || b < a || doc.indexOf(begin, a + 1) >= 0)
    throw new Error(`${what}: expected one "${begin}" … "${END}" block`);
  return doc.slice(0, a) + block + doc.slice(b + END.length);
}

/** A markdown table cell: no pipe or newline breaks the row. */
export const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** True when the module is the script node was started with (not imported by a test). */
export const isMain = (metaUrl: string) =>
  !!process.argv[1] && metaUrl === new URL(`file://${process.argv[1]}`).href;

/** The script's work: rewrite `path` with its block replaced, and say whether anything changed. */
export function writeBlock(path: string, replace: (doc: string, block: string) => string, block: string) {
  const before = readFileSync(path, 'utf8');
  const after = replace(before, block);
  if (after !== before) writeFileSync(path, after);
  console.log(`${relative(ROOT, path)}: ${after === before ? 'up to date' : 'written'}`);
}
