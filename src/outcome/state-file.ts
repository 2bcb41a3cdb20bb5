/**
 * A small state file that a full disk can still update: its size is fixed when it is created
 * (written whole, then renamed into place), and every later write rewrites one of its two slots in
 * place (pwrite at a fixed offset), so it never needs a new block. Each slot carries a generation
 * and a CRC-32 over it; a write goes to the slot not holding the newest valid document, so a write
 * torn by a crash leaves the other slot whole, and a reader takes the valid slot with the highest
 * generation. Synchronous on purpose: a write is done before the next line of a dying process runs.
 */
import { closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { FleetsyncError } from '../errors.ts';

const MAGIC = 0x46534f31; // "FSO1"
const HEADER = 20; // magic u32, generation f64, length u32, crc u32

export interface StateFile<T> {
  readonly path: string;
  /** The newest whole document (null: none yet, or both slots torn). */
  read(): T | null;
  /** Writes `doc` over the older slot; `sync` also flushes it to the disk (a process kill keeps it without). */
  write(doc: T, sync?: boolean): void;
}

interface Slot {
  generation: number;
  payload: Buffer;
}

function decode(buf: Buffer): Slot | null {
  if (buf.length < HEADER || buf.readUInt32LE(0) !== MAGIC) return null;
  const generation = buf.readDoubleLE(4);
  const length = buf.readUInt32LE(12);
  if (HEADER + length > buf.length) return null;
  const payload = buf.subarray(HEADER, HEADER + length);
  const crc = crc32(payload, crc32(buf.subarray(4, 16)));
  return crc === buf.readUInt32LE(16) ? { generation, payload } : null;
}

/** Opens (creating it at its full size when missing) the state file at `path`; `slotBytes` per slot. */
export function openStateFile<T>(path: string, slotBytes: number): StateFile<T> {
  if (!existsSync(path)) {
    // Written whole under a temporary name, then renamed: a file too short is never left in place.
    const tmp = `${path}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, Buffer.alloc(slotBytes * 2));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  }
  // Per slot: the header, then only the payload it announces (a read is as small as the state).
  const slots = (): (Slot | null)[] => {
    const fd = openSync(path, 'r');
    try {
      return [0, 1].map((i) => {
        const head = Buffer.alloc(HEADER);
        if (readSync(fd, head, 0, HEADER, i * slotBytes) < HEADER) return null;
        const length = head.readUInt32LE(12);
        if (head.readUInt32LE(0) !== MAGIC || HEADER + length > slotBytes) return null;
        const buf = Buffer.alloc(HEADER + length);
        head.copy(buf);
        readSync(fd, buf, HEADER, length, i * slotBytes + HEADER);
        return decode(buf);
      });
    } finally {
      closeSync(fd);
    }
  };
  return {
    path,
    read() {
      const [a, b] = slots();
      const best = a && b ? (a.generation >= b.generation ? a : b) : (a ?? b);
      if (!best) return null;
      try {
        return JSON.parse(best.payload.toString('utf8')) as T;
      } catch {
        return null;
      }
    },
    write(doc, sync = false) {
      const payload = Buffer.from(JSON.stringify(doc), 'utf8');
      if (HEADER + payload.length > slotBytes)
        throw new FleetsyncError(
          'E_DB',
          `the state file ${path} has room for ${slotBytes - HEADER} bytes; this state needs ${payload.length}`,
        );
      const [a, b] = slots();
      const newest = Math.max(a?.generation ?? 0, b?.generation ?? 0);
      // Over the slot that is not the newest valid one (a torn slot is the first to be reused).
      const target = a && (!b || a.generation >= b.generation) ? 1 : 0;
      const buf = Buffer.alloc(HEADER + payload.length);
      buf.writeUInt32LE(MAGIC, 0);
      buf.writeDoubleLE(newest + 1, 4);
      buf.writeUInt32LE(payload.length, 12);
      payload.copy(buf, HEADER);
      buf.writeUInt32LE(crc32(payload, crc32(buf.subarray(4, 16))), 16);
      const fd = openSync(path, 'r+');
      try {
        writeSync(fd, buf, 0, buf.length, target * slotBytes);
        if (sync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}
