/**
 * The planner: gaps from the ledger, and the cheaper of the two equivalent fuel-counter paths
 * under the limits (per-vehicle GET over 31 days on the shared default bucket, or bulk POST over
 * 24 hours for 100 vehicles on its own 10/min bucket). The bulk path must store the same litres.
 * The fills: per vehicle-month or fleet-wide per day, whichever sends fewer requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { buildPlan, type PlannedVehicle } from '../../src/sync/planner.ts';
import { formatPlan } from '../../src/sync/report.ts';
import { STREAMS } from '../../src/sync/streams/index.ts';
import { dayRange } from '../../src/sync/windows.ts';
import { ACCOUNT, startHarness } from '../helpers/synced.ts';

const ZONE = 'Australia/Sydney';
let dir: string;
let db: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-plan-'));
  db = await openDatabase(join(dir, 'plan.duckdb'));
});
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const fleet = (n: number): PlannedVehicle[] =>
  Array.from({ length: n }, (_, i) => ({
    vehicle_id: i + 1,
    registration: `V ${i + 1}`,
    fuel_canbus_consumed: true,
    fuel_level: true,
  }));

async function plan(vehicles: number, from: string, to: string) {
  const con = await db.connect();
  try {
    return await buildPlan(con, {
      account: ACCOUNT,
      zone: ZONE,
      range: dayRange(from, to, ZONE),
      streams: new Set(STREAMS),
      vehicles: fleet(vehicles),
      runId: 'plan',
      windowMs: 60_000,
    });
  } finally {
    con.closeSync();
  }
}

describe('the planner', () => {
  it('reads a month of a small fleet per vehicle (GET) and a day of a large fleet in bulk (POST)', async () => {
    const small = await plan(20, '2026-03-01', '2026-04-30');
    expect(small.summary.fuelPath.chosen).toBe('per_vehicle_get');
    expect(small.summary.requestsByBucket.fuel_consumed_bulk ?? 0).toBe(0);
    expect(small.summary.fuelPath.getMs).toBeLessThan(small.summary.fuelPath.postMs);

    const large = await plan(3000, '2026-04-10', '2026-04-10');
    expect(large.summary.fuelPath.chosen).toBe('bulk_post');
    expect(large.summary.requestsByBucket.fuel_consumed_bulk).toBe(30);
    expect(large.summary.fuelPath.postMs).toBeLessThan(large.summary.fuelPath.getMs);
    // The level series adds a request per level-sensor vehicle and day window on the default
    // bucket: 3000 odometer + 3000 level series = 6 limit windows, now the slowest bucket.
    expect(large.summary.requestsByStream.fuel_level_history).toBe(3000);
    expect(large.summary.leastDurationMs).toBe(6 * 60_000);
    expect(large.summary.leastDurationMs).toBeGreaterThan(large.summary.fuelPath.postMs);
  });

  it('plans the fills of every level-sensor vehicle, month by month the path of fewer requests', async () => {
    const fills = (p: Awaited<ReturnType<typeof plan>>) => {
      const u = p.units.filter((x) => x.ledgerStream === 'fuel_fills');
      return {
        requests: u.reduce((s, x) => s + x.estRequests, 0),
        fleetWide: u.filter((x) => x.scope.includes(',')),
      };
    };
    // 20 vehicles over March and April: a request per vehicle-month (40), not one per day (61).
    const small = fills(await plan(20, '2026-03-01', '2026-04-30'));
    expect(small.requests).toBe(40);
    expect(small.fleetWide).toEqual([]);
    // 3000 vehicles over one day: GET /fuel/fills for the fleet, its pages estimated at a fill per
    // vehicle before the first sync (3000 / 500 a page = 6), not 3000 per-vehicle requests.
    const large = fills(await plan(3000, '2026-04-10', '2026-04-10'));
    expect(large.requests).toBe(6);
    expect(large.fleetWide.map((u) => u.scope.split(',').length)).toEqual([3000]);
  });

  it('plans month windows per vehicle and day windows for toll visits, 25-hour DST days split', async () => {
    const p = await plan(2, '2026-04-04', '2026-04-06');
    const visits = p.units.filter((u) => u.stream === 'visits');
    expect(visits.length).toBe(4); // 4 Apr, 5 Apr in two halves (25 h), 6 Apr
    for (const u of visits) expect(u.window.endMs - u.window.startMs).toBeLessThanOrEqual(24 * 3_600_000);
    expect(p.units.filter((u) => u.stream === 'odometer').length).toBe(2);
  });

  it('on a new database (no vehicle stored) calls its least time unknown, never "0 ms"', async () => {
    const fresh = await plan(0, '2026-03-01', '2026-03-30');
    expect(fresh.units.filter((u) => u.stream === 'odometer')).toEqual([]);
    expect(fresh.summary.vehiclesUnknown).toBe(true);
    const text = formatPlan(fresh.summary);
    expect(text).toContain('least time the rate limits allow: unknown until the vehicle list is stored');
    expect(text).not.toMatch(/allow: 0 ms/);
    const known = await plan(20, '2026-03-01', '2026-03-30');
    expect(known.summary.vehiclesUnknown).toBeUndefined();
    expect(formatPlan(known.summary)).toMatch(/least time the rate limits allow: \d/);
  });
});

describe('the bulk fuel path', () => {
  it('stores per-day counter readings whose litres equal the truth, the reset day excluded', async () => {
    const h = await startHarness({ fleet: { vehicles: 8, days: 40 }, deps: { fuelPath: 'bulk_post' } });
    try {
      const s = await h.sync({ streams: ['vehicles', 'fuel'] });
      expect(s.outcome).toBe('ok');
      expect(h.sim.stats().requests.fuel_consumed_post).toBeGreaterThan(30);
      expect(Object.values(h.sim.stats().rateLimited).reduce((a, b) => a + b, 0)).toBe(0);
      const con = await h.db.connect();
      const rows = (
        await con.runAndReadAll(
          'SELECT vehicle_id, window_start, window_end, counter_start_l, counter_end_l FROM fuel_consumed',
        )
      ).getRowObjectsJS();
      con.closeSync();
      let compared = 0;
      let down = 0;
      for (const r of rows) {
        const used = Number(r.counter_end_l) - Number(r.counter_start_l);
        if (used < 0) {
          down++;
          continue;
        }
        const truth = h.fleet.truth.fuelUsedL(
          Number(r.vehicle_id),
          (r.window_start as Date).getTime(),
          (r.window_end as Date).getTime(),
        );
        expect(Math.abs(used - truth)).toBeLessThanOrEqual(0.05);
        compared++;
      }
      expect(compared).toBeGreaterThan(100);
      expect(down).toBe(h.fleet.fuelCounterResets.filter((x) => x.at_ms < h.fleet.endMs).length);
    } finally {
      await h.close();
    }
  }, 180_000);
});
