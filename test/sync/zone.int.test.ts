/**
 * The account's zone is fixed (issue 12 item 6): a run in another zone is refused before a
 * request is sent (sync, serve, a worker's job); the API answering in another offset stops a run
 * before it writes; `sync --rezone` replaces every window under the new zone so no total is
 * counted twice — the result equals a fresh sync in the new zone.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { memoryLogger } from '../../src/log.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { rezoneAccount, rezoneStagingPath } from '../../src/sync/rezone.ts';
import { runSync } from '../../src/sync/run.ts';
import type { SyncDeps } from '../../src/sync/types.ts';
import { syncAccountJob } from '../../src/worker/worker.ts';
import { runMain } from '../helpers/cli.ts';
import { diffTable, dumpDatabase } from '../helpers/dbdump.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const NEW_ZONE = 'Africa/Johannesburg';
let h: Harness;
const FROM = '2026-03-20';
const TO = '2026-04-12';

async function rows(db: Database, sql: string): Promise<Record<string, unknown>[]> {
  const con = await db.connect();
  try {
    return (await con.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

async function total(db: Database, report: string, col: string, zone: string, from: string, to: string) {
  const con = await db.connect();
  try {
    const def = requireReport(report);
    const scope = { account: ACCOUNT, zone, nowMs: h.now() };
    const r = await runReport(con, def, scope, parseReportParams({ from, to }, def, scope));
    return r.rows.reduce((a, x) => a + (typeof x[col] === 'number' ? x[col] : 0), 0);
  } finally {
    con.closeSync();
  }
}

/** A second simulator of the same fleet whose account is set to another zone. */
async function simIn(zone: string): Promise<SimulatorHandle> {
  return startSimulator({ fleet: h.fleet, now: h.now, windowMs: 1000, timezone: zone });
}

function depsFor(db: Database, sim: SimulatorHandle, zone: string): SyncDeps {
  const client = createFleetClient({
    now: Date.now,
    baseUrl: sim.baseUrl,
    username: 'demo',
    password: 'demo-main',
    timezone: zone,
    windowMs: 1000,
    log: h.log,
  });
  return { ...h.deps, db, client, timezone: zone, baseUrl: sim.baseUrl, changelogUrl: false };
}

beforeAll(async () => {
  h = await startHarness({ fleet: { seed: 12, vehicles: 5, days: 40, endDay: '2026-04-12' } });
  expect((await h.sync({ fromDay: FROM, toDay: TO })).outcome).toBe('ok');
}, 120_000);
afterAll(() => h?.close());

describe('a run in another zone is refused before it sends a request', () => {
  const cliEnv = (extra: Record<string, string>) => ({
    FLEET_BASE_URL: h.sim.baseUrl,
    FLEET_USERNAME: 'demo',
    FLEET_PASSWORD: 'demo-main',
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEETSYNC_DB: h.dbPath,
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    ...extra,
  });

  it('sync with FLEET_TIMEZONE unset (the default applies) or set to another zone: exit 2, both zones named, zero requests', async () => {
    h.db.close(); // the CLI opens the file itself
    const before = h.sim.stats().total;
    const unset = await runMain(cliEnv({}), 'sync');
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain(h.fleet.timezone);
    expect(unset.stderr).toContain('Africa/Johannesburg');
    expect(unset.stderr).toContain('FLEET_TIMEZONE (not set, so the default applies)');
    expect(unset.stderr).toContain('fleetsync sync --rezone');
    const other = await runMain(cliEnv({ FLEET_TIMEZONE: 'Asia/Tokyo' }), 'sync', '--plan');
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/first synced in Australia\/Sydney.*FLEET_TIMEZONE is Asia\/Tokyo/s);
    expect(h.sim.stats().total).toBe(before);
    // The right zone still syncs.
    const ok = await runMain(cliEnv({ FLEET_TIMEZONE: h.fleet.timezone }), 'sync', '--from', TO, '--to', TO);
    expect(ok.stderr).not.toContain('E_CONFIG');
    expect(ok.code).toBe(0);
  }, 60_000);

  it('serve with a sync configured in another zone exits 2 before it listens', async () => {
    const before = h.sim.stats().total;
    const r = await runMain(cliEnv({ FLEET_TIMEZONE: NEW_ZONE, FLEETSYNC_PORT: '0' }), 'serve');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Australia\/Sydney.*Africa\/Johannesburg/s);
    expect(r.stdout).not.toContain('dashboard');
    expect(h.sim.stats().total).toBe(before);
  }, 30_000);

  it("a worker's job in another zone fails naming both zones, with no request", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleetsync-worker-zone-'));
    try {
      mkdirSync(join(dataDir, 'accounts'), { recursive: true });
      const file = await openDatabase(join(dataDir, 'accounts', `${ACCOUNT}.duckdb`));
      const con = await file.connect();
      await con.run("INSERT INTO accounts VALUES ($1, 'http://x/rest', 'Australia/Sydney', now())", [
        ACCOUNT,
      ]);
      con.closeSync();
      file.close();
      const before = h.sim.stats().total;
      const account = {
        account: ACCOUNT,
        baseUrl: h.sim.baseUrl,
        username: 'demo',
        password: 'demo-main',
        timezone: NEW_ZONE,
        changelogUrl: null,
      };
      const log = memoryLogger('info');
      const err = await syncAccountJob(
        {
          now: Date.now,
          config: { rateWindowMs: 1000, httpTimeoutMs: 30_000, concurrency: 4 } as never,
          accounts: [account],
          settings: { dataDir, lakeDir: null } as never,
          log,
          signal: new AbortController().signal,
        },
        { account: ACCOUNT },
        'job-1',
      ).catch((e: unknown) => e);
      expect(isFleetsyncError(err, 'E_CONFIG')).toBe(true);
      expect(String((err as Error).message)).toMatch(/Australia\/Sydney.*Africa\/Johannesburg/s);
      expect(h.sim.stats().total).toBe(before);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the API answering in another offset', () => {
  it('stops the first run before it writes, naming both offsets; the zone is not recorded', async () => {
    const sim = await simIn(NEW_ZONE); // the account is set to Johannesburg at the API
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-offset-'));
    const db = await openDatabase(join(dir, 'f.duckdb'));
    const deps = depsFor(db, sim, h.fleet.timezone); // configured: Sydney
    try {
      const err = await runSync(deps, { trigger: 'cli', fromDay: '2026-04-01', toDay: TO }).catch(
        (e: unknown) => e,
      );
      expect(isFleetsyncError(err, 'E_CONFIG')).toBe(true);
      expect((err as Error).message).toMatch(
        /the API answers in \+02:00, FLEET_TIMEZONE is Australia\/Sydney, \+1[01]:00/,
      );
      for (const t of [
        'trips',
        'odometer_windows',
        'fuel_consumed',
        'fuel_level',
        'geofence_visits',
        'carpool_bookings',
      ])
        expect((await rows(db, `SELECT count(*)::INTEGER AS n FROM ${t}`))[0]!.n, t).toBe(0);
      // Not even failed windows: they would lie on the wrong zone's grid, and no later run in the
      // right zone plans them again, so `status` would report them failed for ever.
      expect((await rows(db, 'SELECT count(*)::INTEGER AS n FROM ledger'))[0]!.n).toBe(0);
      expect(await rows(db, 'SELECT * FROM accounts')).toEqual([]);
      expect((await rows(db, 'SELECT outcome FROM runs'))[0]!.outcome).toBe('failed');

      // The zone set right, the next run is whole: nothing failed is left behind.
      const fixed = depsFor(db, sim, NEW_ZONE);
      try {
        const ok = await runSync(fixed, { trigger: 'cli', fromDay: '2026-04-01', toDay: TO });
        expect(ok.outcome).toBe('ok');
      } finally {
        await fixed.client.close();
      }
      expect(
        (await rows(db, "SELECT count(*)::INTEGER AS n FROM ledger WHERE status = 'failed'"))[0]!.n,
      ).toBe(0);
      expect((await rows(db, 'SELECT timezone FROM accounts'))[0]!.timezone).toBe(NEW_ZONE);
    } finally {
      await deps.client.close();
      db.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('sync --rezone', () => {
  it('replaces every window under the new zone: totals equal a fresh sync there, none counted twice', async () => {
    const db = await openDatabase(h.dbPath);
    const sim = await simIn(NEW_ZONE); // the account's zone was changed at the API
    const deps = depsFor(db, sim, NEW_ZONE);
    const freshDir = mkdtempSync(join(tmpdir(), 'fleetsync-fresh-'));
    const freshDb = await openDatabase(join(freshDir, 'fresh.duckdb'));
    const freshDeps = depsFor(freshDb, sim, NEW_ZONE);
    try {
      const oldKm = await total(db, 'mileage', 'distance_km', h.fleet.timezone, FROM, TO);
      expect(oldKm).toBeGreaterThan(0);
      // A plain run in the new zone is refused; the re-zone is the way.
      await expect(runSync(deps, { trigger: 'cli' })).rejects.toThrow(/--rezone/);
      // A re-zone whose re-pull has failures changes nothing; the next one resumes from its staging file.
      const oldTrips = await rows(db, 'SELECT count(*)::INTEGER AS n FROM trips');
      sim.setFaults({ fieldFault: { kind: 'odometer', field: 'odometer_reset' } });
      const failed = await rezoneAccount(deps);
      expect(failed.status).toBe('not_applied');
      expect(failed.run?.outcome).toBe('partial');
      expect((await rows(db, 'SELECT timezone FROM accounts'))[0]!.timezone).toBe(h.fleet.timezone);
      expect(await total(db, 'mileage', 'distance_km', h.fleet.timezone, FROM, TO)).toBe(oldKm);
      expect(await rows(db, 'SELECT count(*)::INTEGER AS n FROM trips')).toEqual(oldTrips);
      expect(existsSync(rezoneStagingPath(h.dbPath, ACCOUNT))).toBe(true);
      sim.setFaults({});
      const s = await rezoneAccount(deps);
      expect(s.status).toBe('applied');
      // Only what the first attempt could not commit was asked again.
      expect(s.run!.requests).toBeLessThan(failed.run!.requests);
      expect(existsSync(rezoneStagingPath(h.dbPath, ACCOUNT))).toBe(false);
      expect(s.fromZone).toBe(h.fleet.timezone);
      expect(s.toZone).toBe(NEW_ZONE);
      expect(s.fromDay <= FROM).toBe(true);
      expect((await rows(db, 'SELECT timezone FROM accounts'))[0]!.timezone).toBe(NEW_ZONE);
      db.close();
      // The same days, synced fresh in the new zone.
      expect((await runSync(freshDeps, { trigger: 'cli', fromDay: s.fromDay, toDay: s.toDay })).outcome).toBe(
        'ok',
      );
      freshDb.close();
      const a = await dumpDatabase(h.dbPath);
      const b = await dumpDatabase(join(freshDir, 'fresh.duckdb'));
      for (const t of [
        'trips',
        'odometer_windows',
        'fuel_consumed',
        'fuel_level',
        'fuel_fills',
        'geofence_visits',
        'ledger',
      ])
        expect(diffTable(a[t], b[t]), t).toEqual({ onlyA: [], onlyB: [] });
      // Report totals over every month touched, in the new zone: equal, so nothing is counted twice.
      const re = await openDatabase(h.dbPath);
      const fr = await openDatabase(join(freshDir, 'fresh.duckdb'));
      try {
        for (const [rep, col] of [
          ['mileage', 'distance_km'],
          ['fuel', 'fuel_used_l'],
          ['tolls', 'duration_s'],
        ] as const) {
          const x = await total(re, rep, col, NEW_ZONE, s.fromDay, s.toDay);
          expect(x, rep).toBeCloseTo(await total(fr, rep, col, NEW_ZONE, s.fromDay, s.toDay), 3);
          expect(x, rep).toBeGreaterThan(0);
        }
        // Not the sum of both zones' windows (what the old behaviour stored).
        expect(await total(re, 'mileage', 'distance_km', NEW_ZONE, s.fromDay, s.toDay)).toBeLessThan(
          oldKm * 1.1,
        );
        const dup = await rows(
          re,
          `SELECT count(*)::INTEGER AS n FROM odometer_windows a JOIN odometer_windows b
             ON a.vehicle_id = b.vehicle_id AND a.window_start < b.window_end AND b.window_start < a.window_end
            AND (a.window_start, a.window_end) <> (b.window_start, b.window_end)`,
        );
        expect(dup[0]!.n).toBe(0);
      } finally {
        re.close();
        fr.close();
      }
    } finally {
      await deps.client.close();
      await freshDeps.client.close();
      db.close();
      freshDb.close();
      await sim.close();
      rmSync(freshDir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('pieces', () => {
  it('reads the offset a wire timestamp states (Z and no offset state none)', async () => {
    const { wireOffsetMinutes } = await import('../../src/time.ts');
    expect(wireOffsetMinutes('2026-09-20 10:32:41+02')).toBe(120);
    expect(wireOffsetMinutes('2026-09-20T10:32:41.000+0530')).toBe(330);
    expect(wireOffsetMinutes('2026-09-20 10:32:41-03:30')).toBe(-210);
    expect(wireOffsetMinutes('2026-09-20T08:32:41Z')).toBeNull();
    expect(wireOffsetMinutes('2026-09-20 10:32:41')).toBeNull();
  });

  it('sync --rezone takes no range, streams or plan', async () => {
    const { parseSyncArgs } = await import('../../src/commands/sync.ts');
    expect(parseSyncArgs({ rezone: true }).rezone).toBe(true);
    for (const extra of [{ from: '2026-01-01' }, { streams: 'trips' }, { plan: true }])
      expect(() => parseSyncArgs({ rezone: true, ...extra })).toThrow(/--rezone/);
  });
});
