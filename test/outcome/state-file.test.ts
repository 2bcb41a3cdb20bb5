/**
 * The state file: fixed size from its creation, rewritten in place, so a full file system still
 * takes every update (a tmpfs filled to the last byte); a write torn part-way (the newest slot's
 * bytes cut) is detected by its CRC and the document before it is read instead.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStateFile } from '../../src/outcome/state-file.ts';

const SLOT = 8192;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-state-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the state file', () => {
  it('keeps its size, and a torn write leaves the document before it readable', () => {
    const path = join(dir, 'torn.state');
    const f = openStateFile<{ n: number; pad: string }>(path, SLOT);
    expect(f.read()).toBeNull();
    for (let n = 1; n <= 5; n++) f.write({ n, pad: 'x'.repeat(n * 100) });
    expect(f.read()).toEqual({ n: 5, pad: 'x'.repeat(500) });
    expect(statSync(path).size).toBe(2 * SLOT);
    // Generation 5 went to slot 0 (1, 3, 5 there; 2, 4 in slot 1): cut it in the middle.
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(100, 0), 0, 100, 200);
    closeSync(fd);
    expect(f.read()).toEqual({ n: 4, pad: 'x'.repeat(400) });
    // The next write goes over the torn slot, not over the whole one.
    f.write({ n: 6, pad: '' });
    expect(f.read()).toEqual({ n: 6, pad: '' });
    expect(statSync(path).size).toBe(2 * SLOT);
  });

  it('refuses a document larger than its slot, naming the file and both sizes', () => {
    // {"pad":"x…x"}: 8,192 x and 10 characters around them.
    const f = openStateFile<{ pad: string }>(join(dir, 'big.state'), SLOT);
    expect(() => f.write({ pad: 'x'.repeat(SLOT) })).toThrow(
      /big\.state has room for 8172 bytes; this state needs 8202/,
    );
  });

  it('takes every update on a file system with no byte left (tmpfs)', () => {
    const mnt = join(dir, 'full');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    try {
      const f = openStateFile<{ n: number; pad: string }>(join(mnt, 'fleet.duckdb.state'), SLOT);
      f.write({ n: 0, pad: '' });
      const fd = openSync(join(mnt, 'filler'), 'w');
      let refused = '';
      try {
        for (const size of [65_536, 4096, 512, 1])
          for (;;)
            try {
              writeSync(fd, Buffer.alloc(size, 1));
            } catch (e) {
              refused = (e as NodeJS.ErrnoException).code ?? '';
              break;
            }
      } finally {
        closeSync(fd);
      }
      expect(refused).toBe('ENOSPC');
      for (let n = 1; n <= 50; n++) f.write({ n, pad: 'y'.repeat((n * 97) % 7000) }, true);
      expect(f.read()).toEqual({ n: 50, pad: 'y'.repeat((50 * 97) % 7000) });
    } finally {
      execFileSync('umount', ['-l', mnt]);
    }
  });
});
