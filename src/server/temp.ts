/**
 * The server's temp directory for download copies (`<tmp>/fleetsync-serve-<pid>-<random>/`). A
 * server removes its own at stop; at start it removes those whose process is gone (a killed
 * server's, with a full copy of any report whose download was cut off). A directory of a live
 * process is another server's and stays; one with this process's PID that this process did not
 * make belongs to an earlier process that had the same PID (a container's PID 1).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'fleetsync-serve-';
const mine = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's live process
  }
}

/** Removes the temp directories of servers that are gone; returns their paths. */
export function sweepServeTempDirs(root = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = /^fleetsync-serve-(\d+)-[A-Za-z0-9]+$/.exec(name);
    if (!m) continue;
    const path = join(root, name);
    const pid = Number(m[1]);
    if (pid === process.pid ? mine.has(path) : alive(pid)) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // not ours to remove (another user's): leave it
    }
  }
  return removed;
}

export interface ServeTempDir {
  path: string;
  remove(): void;
}

/** Sweeps the stale directories, then makes this server's own. */
export function createServeTempDir(root = tmpdir()): ServeTempDir {
  sweepServeTempDirs(root);
  const path = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
  mine.add(path);
  return {
    path,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
      mine.delete(path);
    },
  };
}
