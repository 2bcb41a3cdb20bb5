// What a build of src/ was made from: each .ts file's path, size and modification time. The build
// (scripts/build.ts) writes it to dist/build.json; the entry (bin/fleetsync.js) compares it with
// src/ at every start (~190 stat calls, ~7 ms of CPU) and runs the sources through tsx when they
// differ. Plain JavaScript: the entry reads it before any TypeScript can be loaded. The stamp is
// taken before the build reads the files, so an edit during a build makes it stale, not wrong.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts file under `srcDir`, sorted by path. */
export function sourceStamp(srcDir) {
  const files = [];
  for (const path of readdirSync(srcDir, { recursive: true })) {
    if (!path.endsWith('.ts')) continue;
    const s = statSync(join(srcDir, path));
    if (s.isFile()) files.push({ path, size: s.size, mtimeMs: s.mtimeMs });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { files };
}

/**
 * True when every file of `recorded` (a build's stamp) still has its size and modification time.
 * A file added since is not looked for: only an edit of a recorded file can make src/ import it.
 */
export function stampMatches(srcDir, recorded) {
  const files = recorded?.files;
  if (!Array.isArray(files) || files.length === 0) return false;
  for (const f of files) {
    const s = statSync(join(srcDir, f.path), { throwIfNoEntry: false });
    if (!s || s.size !== f.size || s.mtimeMs !== f.mtimeMs) return false;
  }
  return true;
}
