/**
 * Test harness: a generated fleet served by the simulator on port 0, a real DuckDB file in a temp
 * directory, the real client, and the sync. The clock runs from a fixed base (days after the
 * fleet's history ends, so every window has settled) at real speed, which keeps the simulator's
 * data fixed while its rate-limit windows still slide. The simulator, the client and the sync all
 * read that one clock.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createFleetClient, type FleetClient, type FleetClientOptions } from '../../src/api/client.ts';
import { memoryLogger } from '../../src/log.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type JsonRow } from '../../src/reports/run.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet, FleetOptions } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/server.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import type { SyncDeps } from '../../src/sync/run.ts';
import { syncAccount } from '../../src/wiring.ts';
import type { RunSummary, SyncRequest } from '../../src/sync/types.ts';
import { localDate } from '../../src/time.ts';
import { sleeperQueue } from './api.ts';

export const ACCOUNT = 'test';

export interface Harness {
  fleet: Fleet;
  sim: SimulatorHandle;
  db: Database;
  dbPath: string;
  dir: string;
  client: FleetClient;
  log: ReturnType<typeof memoryLogger>;
  now: () => number;
  /** Moves the shared clock (simulator and sync) forward. */
  advance(ms: number): void;
  /**
   * Another client of the harness's simulator (its login, zone, window, clock and log, and with
   * `instantWaits` its waits); `extra` overrides. The caller closes it.
   */
  newClient(extra?: Partial<FleetClientOptions>): FleetClient;
  firstDay: string;
  lastDay: string;
  deps: SyncDeps;
  sync(req?: Partial<SyncRequest>): Promise<RunSummary>;
  /** Runs a named report on the database (default range: the fleet's history), as of now(). */
  report(
    name: string,
    raw?: Record<string, string>,
    opts?: { fuelDropL?: number; taxYearStart?: string },
  ): Promise<JsonRow[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  fleet?: Partial<FleetOptions>;
  /** The simulator's limit window (short, so tests never wait through real minutes). */
  windowMs?: number;
  sim?: Partial<SimulatorOptions>;
  deps?: Partial<SyncDeps>;
  /** Clock base relative to the end of history (default: 4 days after). */
  nowOffsetMs?: number;
  /** Use the real clock (for tests that also run the CLI in a child process, which has no other). */
  realClock?: boolean;
  /** A database file to start from (copied into the temp directory): see shared-sync.ts. */
  dbFrom?: string;
  /**
   * The client's waits (its rate buckets, a 429's pause, a retry's backoff, the hold between two
   * runs) move the shared clock to their end at once instead of passing in real time: the
   * simulator's windows slide as far, so nothing is sent early, but a run no longer waits through
   * them. Not with `realClock`.
   */
  instantWaits?: boolean;
}

/** The fleet a harness generates where its options do not say otherwise. */
export const HARNESS_FLEET = { seed: 7, vehicles: 14, days: 75, endDay: '2026-04-20' } as const;

export async function startHarness(o: HarnessOptions = {}): Promise<Harness> {
  const fleet = generateFleet({ ...HARNESS_FLEET, ...o.fleet });
  const base = o.realClock ? Date.now() : fleet.endMs + (o.nowOffsetMs ?? 4 * 86_400_000);
  const t0 = Date.now();
  let shift = 0;
  const now = () => base + shift + (Date.now() - t0);
  const windowMs = o.windowMs ?? 1000;
  // The clients on this clock (the harness's and newClient's): time jumps only while none has a
  // request on the wire.
  const clients = new Set<FleetClient>();
  const sleep =
    o.instantWaits && !o.realClock
      ? instantSleep(
          now,
          (ms) => (shift += ms),
          () => [...clients].reduce((n, c) => n + c.activity().inFlight, 0),
        )
      : undefined;
  const sim = await startSimulator({ fleet, now, windowMs, ...o.sim });
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-'));
  const dbPath = join(dir, 'fleet.duckdb');
  if (o.dbFrom) copyFileSync(o.dbFrom, dbPath);
  const opened = await openDatabase(dbPath);
  // h.report's connection, kept open (the models are defined on a connection once, ~50 ms of CPU,
  // as serve keeps its connections) and closed with the database: an open connection would keep
  // the file locked for a CLI child after a test's h.db.close().
  let reportCon: DuckDBConnection | null = null;
  let reportTurn: Promise<unknown> = Promise.resolve();
  const db: Database = {
    ...opened,
    close: () => {
      reportCon?.closeSync();
      reportCon = null;
      opened.close();
    },
  };
  const log = memoryLogger('debug', ['demo-main', 'demo-sub']);
  const newClient = (extra: Partial<FleetClientOptions> = {}) => {
    const c = createFleetClient({
      baseUrl: sim.baseUrl,
      username: 'demo',
      password: 'demo-main',
      timezone: fleet.timezone,
      windowMs,
      log,
      // The harness' clock, as the simulator's limiter and the sync have it: a run compares the
      // previous run's last request (the client's clock) with its own start (the sync's clock) to
      // know whether the API's windows still count it; two clocks made every later run wait a window.
      now,
      ...(sleep ? { sleep } : {}),
      ...extra,
    });
    clients.add(c);
    return c;
  };
  const client = newClient();
  const firstDay = localDate(fleet.startMs, fleet.timezone);
  const lastDay = localDate(fleet.endMs - 1, fleet.timezone);
  const deps: SyncDeps = {
    db,
    client,
    account: ACCOUNT,
    timezone: fleet.timezone,
    baseUrl: sim.baseUrl,
    windowMs,
    log,
    now,
    ...o.deps,
  };
  return {
    fleet,
    sim,
    db,
    dbPath,
    dir,
    client,
    log,
    now,
    advance: (ms: number) => {
      shift += ms;
    },
    newClient,
    firstDay,
    lastDay,
    deps,
    sync: (req = {}) => syncAccount(deps, { trigger: 'cli', fromDay: firstDay, toDay: lastDay, ...req }),
    report: (name, raw = { from: firstDay, to: lastDay }, opts = {}) => {
      const scope = { account: ACCOUNT, zone: fleet.timezone, nowMs: now(), ...opts };
      // one report at a time on the connection
      const turn = reportTurn.then(async () =>
        reportWith((reportCon ??= await db.connect()), name, raw, scope),
      );
      reportTurn = turn.catch(() => undefined);
      return turn;
    },
    async close() {
      await client.close();
      db.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits on a clock that runs at real speed and can be moved forward (`advance`), for a test that
 * must not sit through rate-limit windows: a sleeper wakes when real time reaches its end, or
 * sooner, when no request is on the wire (`busy() === 0`): then the clock jumps to the earliest
 * sleeper's end and wakes it alone. Time never jumps while a request is in flight (a jump there
 * would let the client count a slot free that the server, stamping its arrival after the jump,
 * still counts), and sleepers wake in the order of their ends, as they would in real time.
 */
export function instantSleep(now: () => number, advance: (ms: number) => void, busy: () => number) {
  const sleepers = sleeperQueue();
  const queue = sleepers.queue;
  let pumping: NodeJS.Timeout | NodeJS.Immediate | null = null;
  const schedule = (soon: boolean) => {
    if (pumping) return;
    pumping = soon ? setImmediate(pump) : setTimeout(pump, 1);
  };
  function pump() {
    pumping = null;
    if (!queue.length) return;
    sleepers.sorted();
    const t = now();
    const due = queue.filter((q) => q.at <= t);
    if (due.length) {
      for (const q of due) queue.splice(queue.indexOf(q), 1);
      for (const q of due) q.wake();
    } else if (busy() === 0) {
      const q = queue.shift()!;
      advance(q.at - t);
      q.wake();
    }
    if (queue.length) schedule(busy() === 0);
  }
  return (ms: number, signal?: AbortSignal) =>
    sleepers.sleep(now() + Math.max(0, ms), signal, () => schedule(true));
}

/**
 * The real CLI's environment against a harness: its simulator with the main login, its fleet's
 * zone, the test account, `cli.duckdb` in its directory and a 1 s rate window; `extra` adds to or
 * overrides these (the webhook, another database path, the harness's own window).
 */
export function harnessCliEnv(h: Harness, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FLEET_BASE_URL: h.sim.baseUrl,
    FLEET_USERNAME: 'demo',
    FLEET_PASSWORD: 'demo-main',
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEETSYNC_DB: join(h.dir, 'cli.duckdb'),
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    ...extra,
  };
}

type ReportOnScope = {
  account: string;
  zone: string;
  nowMs: number;
  fuelDropL?: number;
  taxYearStart?: string;
};

/** A named report's rows on a database (one connection, closed after). */
export async function reportOn(
  db: Database,
  name: string,
  raw: Record<string, string>,
  scope: ReportOnScope,
): Promise<JsonRow[]> {
  const con = await db.connect();
  try {
    return await reportWith(con, name, raw, scope);
  } finally {
    con.closeSync();
  }
}

/** A named report's rows on a connection. */
async function reportWith(
  con: DuckDBConnection,
  name: string,
  raw: Record<string, string>,
  scope: ReportOnScope,
): Promise<JsonRow[]> {
  const def = requireReport(name);
  return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
}

/** Rows of a query on a test database (one connection, closed after). */
export async function queryDb(db: Database, sql: string, params: (string | number)[] = []) {
  const con = await db.connect();
  try {
    return (await con.runAndReadAll(sql, params)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}
