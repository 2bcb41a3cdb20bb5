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
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
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
  const sim = await startSimulator({ fleet, now, windowMs, ...o.sim });
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-'));
  const dbPath = join(dir, 'fleet.duckdb');
  if (o.dbFrom) copyFileSync(o.dbFrom, dbPath);
  const db = await openDatabase(dbPath);
  const log = memoryLogger('debug', ['demo-main', 'demo-sub']);
  const client = createFleetClient({
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
  });
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
    firstDay,
    lastDay,
    deps,
    sync: (req = {}) => syncAccount(deps, { trigger: 'cli', fromDay: firstDay, toDay: lastDay, ...req }),
    report: (name, raw = { from: firstDay, to: lastDay }, opts = {}) =>
      reportOn(db, name, raw, { account: ACCOUNT, zone: fleet.timezone, nowMs: now(), ...opts }),
    async close() {
      await client.close();
      db.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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

/** A named report's rows on a database (one connection, closed after). */
export async function reportOn(
  db: Database,
  name: string,
  raw: Record<string, string>,
  scope: { account: string; zone: string; nowMs: number; fuelDropL?: number; taxYearStart?: string },
): Promise<JsonRow[]> {
  const def = requireReport(name);
  const con = await db.connect();
  try {
    return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
  } finally {
    con.closeSync();
  }
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
