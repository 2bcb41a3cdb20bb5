/**
 * The DuckDB file: one instance per process (DuckDB lets one process hold a file read-write and
 * then nobody else may open it), many connections on it. Opening runs the migrations in
 * `queries/schema/` in order. A file held by another process raises E_DB_LOCKED with a message
 * that names the holder and the server API to use instead.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DEFAULT_DB_PATH, DEMO_DB_PATH } from '../defaults.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { accountZones, rebuildFacts, rebuildTripDayFacts } from './facts.ts';
import { execute, listSchemaFiles, loadSql } from './queries.ts';

export const DEFAULT_DB_MEMORY = '256MB';

/**
 * DuckDB's threads while a `fleetsync sync` process runs a sync (not its re-zone, plan or
 * upgrade). A sync's statements are small (a commit's deletes, appends, merges and its days'
 * facts), so a second thread adds its coordination, not speed: 500 vehicles × 7 days at limits
 * ×100 took 5.0 ms of CPU a request with one thread against 5.6 with two, and no longer (the
 * rate limits set a sync's wall time). A worker's job runs so too (src/worker/jobs.ts: 11 % less
 * CPU a job). `serve` runs on one thread too, for its memory (SERVING_DB).
 */
export const SYNC_DB_THREADS = 1;

/**
 * DuckDB's memory limit while a `fleetsync sync` process runs a sync with the small heap
 * (`FLEETSYNC_SYNC_HEAP=small`, the default; `fast` keeps DEFAULT_DB_MEMORY). A sync's pool
 * fills with what it can give up: the blocks of the tables its commits read, and the rows
 * committed since the last checkpoint (`IN_MEMORY_TABLE`: 130–140 MB of the pool at its fullest,
 * 200 and 800 vehicles × 90 days), which DuckDB writes to a temporary file when the pool is full.
 * At 128 MB the sync's peak RSS was ~35 MB lower for the same CPU (docs/performance-log.md "Session
 * 16 (`rss4`)"). It is lowered with room to grow back (lowerDatabaseMemory): the first commit that
 * does not fit raises the pool to what it was for the rest of the run, and each commit that ran
 * out is tried once more, so a window fails (E_DB_MEMORY, nothing of it written, the next run
 * pulls it again) only where the default pool would have failed too.
 */
export const SYNC_DB_MEMORY = '128MB';

/** Runs one `SET` of a global setting on a connection of its own. */
async function setGlobal(db: Pick<Database, 'connect'>, sql: string): Promise<void> {
  const con = await db.connect();
  try {
    await con.run(sql);
  } finally {
    con.closeSync();
  }
}

/** Sets DuckDB's threads for the whole instance (a global setting). */
export async function setDatabaseThreads(db: Pick<Database, 'connect'>, threads: number): Promise<void> {
  if (!Number.isSafeInteger(threads) || threads < 1)
    throw new FleetsyncError('E_DB', `bad thread count ${threads}`);
  await setGlobal(db, `SET threads = ${threads}`);
}

/** Sets DuckDB's memory limit for the whole instance (a global setting), e.g. `128MB`. */
export async function setDatabaseMemory(db: Pick<Database, 'connect'>, limit: string): Promise<void> {
  if (!/^[1-9]\d*(MB|GB)$/.test(limit)) throw new FleetsyncError('E_DB', `bad memory limit ${limit}`);
  await setGlobal(db, `SET memory_limit = '${limit}'`);
}

/**
 * The pools lowered with room to grow back: the instance's limit before (DuckDB's own text, e.g.
 * `244.1 MiB`), and the raise once begun (every writer that ran out meanwhile waits for the same).
 */
const roomToGrow = new WeakMap<object, { before: string; raised: Promise<string> | null }>();
/** The instance a global setting belongs to (a wrapper of a Database passes its instance on). */
const poolOf = (db: Pick<Database, 'connect'>): object => (db as Partial<Database>).instance ?? db;

/**
 * Lowers DuckDB's memory limit (setDatabaseMemory) with room to grow back: raiseLoweredMemory
 * sets the limit the instance had before when a commit did not fit in the lower one.
 */
export async function lowerDatabaseMemory(db: Pick<Database, 'connect'>, limit: string): Promise<void> {
  const con = await db.connect();
  try {
    const r = await con.runAndReadAll(`SELECT current_setting('memory_limit') AS m`);
    roomToGrow.set(poolOf(db), { before: String(r.getRowObjectsJS()[0]!.m), raised: null });
  } finally {
    con.closeSync();
  }
  await setDatabaseMemory(db, limit);
}

/**
 * The limit a lowered pool had before lowerDatabaseMemory, set again: after a commit ran out of
 * memory, and at the run's end (its checkpoint writes what the run committed). Resolves to that
 * limit once it is set — for every caller, also those that ran out while another raised it — or
 * null when the pool was never lowered or the SET failed (said on `log`; the next call tries again).
 */
export async function raiseLoweredMemory(
  db: Pick<Database, 'connect'>,
  log: Pick<Logger, 'warn'>,
): Promise<string | null> {
  const room = roomToGrow.get(poolOf(db));
  if (room === undefined) return null;
  room.raised ??= setGlobal(db, `SET memory_limit = '${room.before.replace(/'/g, "''")}'`).then(
    () => room.before,
    (e: unknown) => {
      room.raised = null;
      throw e;
    },
  );
  try {
    return await room.raised;
  } catch (e) {
    log.warn("the sync's lowered database memory limit could not be raised back", {
      error: describeError(e),
    });
    return null;
  }
}

export interface Database {
  readonly path: string;
  readonly instance: DuckDBInstance;
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

function lockError(path: string, cause: unknown, whileServing?: string): FleetsyncError {
  const text = cause instanceof Error ? cause.message : String(cause);
  const pid = /PID (\d+)/.exec(text)?.[1];
  return new FleetsyncError(
    'E_DB_LOCKED',
    `the database ${path} is in use by another fleetsync process${pid ? ` (PID ${pid})` : ''}. ` +
      `Only one process may open it. If that is \`fleetsync serve\`, ask it instead: ` +
      `\`fleetsync status\` and GET /api/status on the running server show its status, POST /api/sync ` +
      `(with the header X-Fleetsync-Request: 1) starts a sync, and GET /api/reports/<report>.csv exports.` +
      (whileServing ? ` ${whileServing}` : ''),
    { cause, details: { pid: pid ? Number(pid) : null } },
  );
}

/**
 * No file where a command reads one: which file it looked for (the full path: a relative one is
 * the current directory's), whether that was the default because FLEETSYNC_DB is not set, and how
 * to point at another.
 */
function noDatabase(path: string): FleetsyncError {
  const full = resolve(path);
  const where = full === path ? '' : ` (${full})`;
  const why =
    path === DEFAULT_DB_PATH
      ? `FLEETSYNC_DB is not set, so this is its default, ${DEFAULT_DB_PATH} in the current directory (${process.cwd()})`
      : 'the file FLEETSYNC_DB names';
  // After `npm start` the only database is the demo's: say so, a first command's likeliest miss.
  const demo =
    path === DEFAULT_DB_PATH && existsSync(DEMO_DB_PATH)
      ? `. The demo's database (npm start) is ${DEMO_DB_PATH}: set FLEETSYNC_DB=${DEMO_DB_PATH} to read it`
      : '';
  return new FleetsyncError(
    'E_USAGE',
    `no database at ${path}${where}: ${why}${demo}. Point FLEETSYNC_DB at the database to read (in the environment or the .env file), ` +
      `or run \`fleetsync sync\` first to create this one`,
  );
}

export interface OpenOptions {
  readOnly?: boolean;
  mustExist?: boolean;
  memoryLimit?: string;
  threads?: number;
  /**
   * What the command does instead while `serve` holds the file (DuckDB lets one process open it,
   * read-only opens included): said in the lock error, after the server's general ways.
   */
  whileServing?: string;
  /** More of DuckDB's global settings, by name (e.g. allocator_flush_threshold). */
  settings?: Readonly<Record<string, string>>;
}

/**
 * DuckDB as `serve` opens it: the dashboard's calls, one download's COPY at a time
 * (src/server/heavy-queue.ts) and the scheduled sync's writes in one process (issue 29: serving
 * peak RSS ≤ 512 MB; docs/performance.md "Serving peak RSS"). One thread: each statement runs on
 * the libuv thread that asked for it (so a download, the sync and a dashboard call still run side
 * by side) without DuckDB's per-thread buffers and allocator caches for a second worker; at 5,000
 * vehicles under the load test (16 clients, 4 downloads of 0.7 M trips, a sync) the peak was
 * 473.4 MB with one thread against 539.0 MB with two (256 MB pool), every download byte-equal and
 * the sync ok. The pool stays 256 MB: at 192 MB the peak was 431.8–463.2 MB, but a full year of
 * fuel_efficiency_drivers at 5,000 vehicles ran out of memory (it answers at 256 MB). The
 * allocator gives freed memory back: a background thread purges freed pages and a task's thread
 * cache is flushed above 8 MB (a year's trips CSV alone, 500 vehicles, 160 MB pool: peak 429
 * instead of 493 MB). One thread needed the trips export to stream without its sort (trips
 * stored in start order): with the sort it ran out of memory beside a sync.
 */
export const SERVING_DB: OpenOptions = {
  threads: 1,
  settings: { allocator_background_threads: 'true', allocator_flush_threshold: '8MB' },
};

export async function openDatabase(path: string, opts: OpenOptions = {}): Promise<Database> {
  if (opts.mustExist && path !== ':memory:' && !existsSync(path)) throw noDatabase(path);
  if (path !== ':memory:') {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (cause) {
      const why = cause instanceof Error ? `: ${cause.message}` : '';
      throw new FleetsyncError('E_DB', `cannot create the directory for the database ${path}${why}`, {
        cause,
      });
    }
  }
  let instance: DuckDBInstance;
  try {
    // DuckDB's buffer pool defaults to 80 % of RAM; fleetsync shares the machine, so it is bounded
    // (DuckDB spills larger work to disk).
    instance = await DuckDBInstance.create(path, {
      ...opts.settings,
      memory_limit: opts.memoryLimit ?? DEFAULT_DB_MEMORY,
      ...(opts.threads ? { threads: String(opts.threads) } : {}),
      ...(opts.readOnly ? { access_mode: 'READ_ONLY' } : {}),
    });
  } catch (cause) {
    const text = cause instanceof Error ? cause.message : String(cause);
    if (/lock/i.test(text)) throw lockError(path, cause, opts.whileServing);
    throw new FleetsyncError('E_DB', `cannot open the database ${path}: ${text}`, { cause });
  }
  if (opts.readOnly) await refuseOldSchema(instance, path);
  else {
    const con = await instance.connect();
    try {
      const applied = await migrate(con);
      // The upgrade that adds the daily facts (and coverage) computes them for the accounts stored;
      // one that adds facts of one stream computes that stream's again.
      if (applied.some((m) => FACTS_MIGRATIONS.includes(m)))
        await inTransaction(con, async () => {
          for (const a of await accountZones(con)) await rebuildFacts(con, a.account, a.zone);
        });
      else {
        const streams = new Set(applied.flatMap((m) => STREAM_FACTS_MIGRATIONS[m] ?? []));
        if (streams.size)
          await inTransaction(con, async () => {
            for (const a of await accountZones(con))
              for (const stream of streams) await rebuildFacts(con, a.account, a.zone, stream);
          });
        // the upgrade that adds the trips' day facts per driver computes them (a trips rebuild does)
        if (applied.includes(TRIP_DAY_FACTS_MIGRATION) && !streams.has('trips'))
          await inTransaction(con, async () => {
            for (const a of await accountZones(con)) await rebuildTripDayFacts(con, a.account, a.zone);
          });
      }
      // the upgrade that stores the trips' day facts and the coverage in day order (after the
      // rebuilds above: those insert month by month, but the rows already stored are rewritten)
      if (applied.includes(FACTS_DAY_ORDER_MIGRATION))
        await inTransaction(con, () => execute(con, 'sync/facts_day_order'));
    } finally {
      con.closeSync();
    }
  }
  let closed = false;
  return {
    path,
    instance,
    connect: () => instance.connect(),
    close: () => {
      if (closed) return;
      closed = true;
      instance.closeSync();
    },
  };
}

/**
 * A read-only open cannot upgrade the file: a database written by an older version is refused with
 * what to do, rather than read through a schema the queries do not know.
 */
async function refuseOldSchema(instance: DuckDBInstance, path: string): Promise<void> {
  const con = await instance.connect();
  try {
    const pending = await pendingMigrations(con);
    if (pending.length)
      throw new FleetsyncError(
        'E_DB',
        `the database ${path} was written by an older fleetsync (${pending.length} upgrade(s) pending) and is opened read-only here; run \`fleetsync status\` once to upgrade it, then try again`,
      );
  } finally {
    con.closeSync();
  }
}

/** The migrations that add the daily facts and the day's coverage (queries/schema/). */
const FACTS_MIGRATIONS = ['088_daily_facts.sql', '089_day_coverage.sql'];
/** The migration that adds the trips' day facts per driver (trip_day_facts). */
const TRIP_DAY_FACTS_MIGRATION = '054_trip_day_facts.sql';
/** The migration that stores trip_day_facts and day_coverage in (account, day) order. */
const FACTS_DAY_ORDER_MIGRATION = '041_facts_in_day_order.sql';
/** Migrations that add facts of one ledger stream: that stream's facts are computed again. */
const STREAM_FACTS_MIGRATIONS: Record<string, string> = {
  '090_toll_charge_facts.sql': 'visits',
  '093_trip_after_hours_facts.sql': 'trips',
  '094_activity_facts.sql': 'activity',
  '081_trip_facts_first_day.sql': 'trips',
};

/** Applies every `queries/schema/NNN_*.sql` not yet recorded in `schema_migrations`, in order. */
export async function migrate(con: DuckDBConnection): Promise<string[]> {
  await con.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)',
  );
  const applied: string[] = [];
  for (const name of await pendingMigrations(con)) {
    await con.run('BEGIN');
    try {
      await con.run(loadSql(`schema/${name}`));
      await con.run('INSERT INTO schema_migrations VALUES ($1, now())', [name]);
      await con.run('COMMIT');
    } catch (cause) {
      await con.run('ROLLBACK');
      throw new FleetsyncError('E_DB', `migration ${name} failed`, { cause });
    }
    applied.push(name);
  }
  return applied;
}

/** The schema files not yet applied to the database (every one when it has no schema_migrations table). */
async function pendingMigrations(con: DuckDBConnection): Promise<string[]> {
  const table = await con.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'schema_migrations'",
  );
  const done = new Set<string>();
  if (Number(table.getRowObjectsJS()[0]?.n) > 0)
    for (const r of (await con.runAndReadAll('SELECT name FROM schema_migrations')).getRowObjectsJS())
      done.add(String(r.name));
  return listSchemaFiles().filter((name) => !done.has(name));
}

/** Runs `fn` in one transaction on `con`: commits when it returns, rolls back when it throws. */
export async function inTransaction<T>(con: DuckDBConnection, fn: () => Promise<T>): Promise<T> {
  await con.run('BEGIN TRANSACTION');
  try {
    const out = await fn();
    await con.run('COMMIT');
    return out;
  } catch (e) {
    try {
      await con.run('ROLLBACK');
    } catch (rollbackError) {
      // Name the first error: it is the one the user can act on (e.g. "No space left on device").
      const first = e instanceof Error ? e.message : String(e);
      throw new FleetsyncError('E_DB', `rollback failed after an error: ${first}`, {
        cause: [e, rollbackError],
      });
    }
    throw e;
  }
}
