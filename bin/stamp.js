// What a build of src/ was made from: each .ts file's path, size, modification time and content
// hash. The build (scripts/build.ts) writes it to dist/build.json; the entry (bin/fleetsync.js)
// compares it with src/ at every start (~190 stat calls, ~1–7 ms of CPU) and runs the sources
// through tsx when they differ. A file whose time moved but whose size did not is read and its hash
// compared: copying an install or packing it into an image layer keeps the contents but may change
// the times (an image layer's tar keeps whole seconds), and that is not an edit. Plain
// JavaScript: the entry reads it before any TypeScript can be loaded. The stamp is taken before
// the build reads the files, so an edit during a build makes it stale, not wrong.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const hashOf = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every .ts file under `srcDir`, sorted by path. */
export function sourceStamp(srcDir) {
  const files = [];
  for (const path of readdirSync(srcDir, { recursive: true })) {
    if (!path.endsWith('.ts')) continue;
    const file = join(srcDir, path);
    const s = statSync(file);
    if (s.isFile()) files.push({ path, size: s.size, mtimeMs: s.mtimeMs, sha256: hashOf(file) });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { files };
}

/**
 * True when every file of `recorded` (a build's stamp) still has its size and either its
 * modification time or its contents. A file added since is not looked for: only an edit of a
 * recorded file can make src/ import it.
 */
export function stampMatches(srcDir, recorded) {
  const files = recorded?.files;
  if (!Array.isArray(files) || files.length === 0) return false;
  for (const f of files) {
    const file = join(srcDir, f.path);
    const s = statSync(file, { throwIfNoEntry: false });
    if (!s || s.size !== f.size) return false;
    if (s.mtimeMs !== f.mtimeMs && (typeof f.sha256 !== 'string' || hashOf(file) !== f.sha256)) return false;
  }
  return true;
}
