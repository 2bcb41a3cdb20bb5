#!/usr/bin/env node
// Installed entry point: runs the build of the CLI (dist/cli.js, made by `npm ci` or `npm run
// build`: scripts/build.ts). When src/ no longer matches that build, or there is none, it runs the
// TypeScript sources through tsx instead, so an edited checkout never runs stale code.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stampMatches } from './stamp.js';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** The build's record (dist/build.json), or null when there is no readable one. */
function buildRecord() {
  try {
    return JSON.parse(readFileSync(`${dist}build.json`, 'utf8'));
  } catch (e) {
    if (e.code === 'ENOENT' || e instanceof SyntaxError) return null;
    throw e;
  }
}

let entry = `${dist}cli.js`;
const record = buildRecord();
if (!stampMatches(src, record)) {
  process.stderr.write(
    record
      ? 'fleetsync: src/ differs from the build in dist/ (npm run build); running the sources through tsx\n'
      : 'fleetsync: no build in dist/ (npm run build); running the sources through tsx\n',
  );
  const { register } = await import('tsx/esm/api');
  register();
  entry = `${src}cli.ts`;
}
process.argv.splice(1, 1, entry);
await import(pathToFileURL(entry).href);
