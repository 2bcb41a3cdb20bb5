/**
 * A synced database built once per test run and shared by every test file that only needs the
 * sync's result (docs/architecture.md, "Tests"). The first file to ask for a fleet syncs it in a
 * harness of its own and leaves the database file and the run's summary in the run's directory
 * (test/helpers/global-setup.ts); that file and every later one (in any worker, any project) get
 * a harness whose database is a COPY of it, so a test may write to its database freely.
 *
 * What a test gets is the same whoever built it: the database, the first sync's summary, and a
 * clock no earlier than the end of that sync. What it does not get: the simulator's counters and
 * the harness' log of that sync (its own simulator has seen none of it). A test that asserts on
 * those syncs for itself (startHarness + h.sync()).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { inject } from 'vitest';
import type { FleetOptions } from '../../src/simulator/model.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { HARNESS_FLEET, queryDb, startHarness, type Harness } from './synced.ts';

/** How long a file waits for another worker building the same fleet (a 120-day fleet ~ 1 min). */
const BUILD_WAIT_MS = 5 * 60_000;

export interface SharedSync {
  h: Harness;
  /** The summary of the sync that built the database (the same for every file of the run). */
  first: RunSummary;
}

interface Built {
  first: RunSummary;
  /** The builder's clock when its sync ended. */
  nowMs: number;
}

/**
 * A harness on `fleet` (startHarness's defaults for what is not given) whose database holds one
 * whole sync of the fleet's history (`h.sync()` with no arguments), built once per run.
 */
export async function startSharedSync(fleet: Partial<FleetOptions> = {}): Promise<SharedSync> {
  const dir = inject('sharedSyncDir');
  // The same fleet however it is spelled: the defaults filled in, the keys in one order.
  const what = JSON.stringify(
    Object.fromEntries(Object.entries({ ...HARNESS_FLEET, ...fleet }).sort(([a], [b]) => (a < b ? -1 : 1))),
  );
  const key = createHash('sha1').update(what).digest('hex').slice(0, 16);
  const dbFile = join(dir, `${key}.duckdb`);
  const metaFile = join(dir, `${key}.json`);
  const failedFile = join(dir, `${key}.failed`);
  if (claim(join(dir, `${key}.lock`))) {
    try {
      writeAtomic(metaFile, JSON.stringify(await build(fleet, dbFile)));
    } catch (e) {
      writeFileSync(failedFile, e instanceof Error ? (e.stack ?? e.message) : String(e));
      throw e;
    }
  }
  const built = await waitFor(metaFile, failedFile, what);
  const h = await startHarness({ fleet, dbFrom: dbFile });
  h.advance(Math.max(0, built.nowMs - h.now()));
  return { h, first: built.first };
}

/** True for the one caller that may build (mkdir is atomic across processes). */
function claim(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

async function build(fleet: Partial<FleetOptions>, dbFile: string): Promise<Built> {
  const b = await startHarness({ fleet });
  try {
    const first = await b.sync();
    // Everything in the file itself (nothing left in the write-ahead log), then copied whole.
    await queryDb(b.db, 'CHECKPOINT');
    copyFileSync(b.dbPath, `${dbFile}.tmp`);
    renameSync(`${dbFile}.tmp`, dbFile);
    return { first, nowMs: b.now() };
  } finally {
    await b.close();
  }
}

function writeAtomic(path: string, text: string) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function waitFor(metaFile: string, failedFile: string, what: string): Promise<Built> {
  const end = Date.now() + BUILD_WAIT_MS;
  while (!existsSync(metaFile)) {
    if (existsSync(failedFile))
      throw new Error(
        `the shared sync of ${what} failed in another file:\n${readFileSync(failedFile, 'utf8')}`,
      );
    if (Date.now() > end)
      throw new Error(`the shared sync of ${what} was not built within ${BUILD_WAIT_MS} ms`);
    await delay(100);
  }
  return JSON.parse(readFileSync(metaFile, 'utf8')) as Built;
}
