/**
 * Department names as accounts write them (an apostrophe, an en dash, a colon, longer than 64
 * characters) filter every report over the real server: the simulator's vehicles carry them, a
 * sync stores them, and each report answers 200 with exactly the named department's vehicles
 * (taken from the fleet as renamed here, not from the code under test). The values are bound
 * parameters: a name that looks like SQL is only a name that matches nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import type { SimCarpoolVehicle } from '../../src/simulator/model.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const LONG =
  'Regional Operations and Maintenance – Northern Territories, Remote Communities & Partnerships (Pool 7)';
const NAMES = ["Children's Services", 'Sales – East', 'Ops: North', LONG] as const;

let h: Harness;
let server: RunningServer;
/** vehicle id → the department this test gave it. */
const given = new Map<number, string>();

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 8, days: 20 } });
  h.fleet.vehicles.forEach((v, i) => {
    const name = NAMES[i % NAMES.length]!;
    (v as { department: string }).department = name;
    given.set(v.vehicle_id, name);
  });
  for (const cv of h.fleet.carpoolVehicles as SimCarpoolVehicle[])
    if (cv.department !== null) cv.department = given.get(cv.vehicle_id)!;
  expect((await h.sync()).outcome).toBe('ok');
  const config = loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone });
  server = await startServer({ db: h.db, config, log: silentLogger, now: h.now, port: 0, host: '127.0.0.1' });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await h?.close();
});

const get = async (report: string, department: string) => {
  const q = new URLSearchParams({ from: h.firstDay, to: h.lastDay, department });
  return fetch(`${server.url}api/reports/${report}?${q}`);
};
type Answer = { rows: Record<string, unknown>[] };

describe('department names as accounts write them', () => {
  it('is longer than 64 characters (the old limit) and at most 200', () => {
    expect(LONG.length).toBeGreaterThan(64);
    expect(LONG.length).toBeLessThanOrEqual(200);
  });

  it.each(NAMES)('%s: every report answers 200', async (name) => {
    const failed: string[] = [];
    for (const report of REPORT_NAMES) {
      const res = await get(report, name);
      if (res.status !== 200) failed.push(`${report} ${res.status} ${await res.text()}`);
    }
    expect(failed).toEqual([]);
  });

  it.each(NAMES)('%s: the vehicles, mileage and trips of exactly that department', async (name) => {
    const mine = [...given].filter(([, d]) => d === name).map(([id]) => id);
    expect(mine.length).toBeGreaterThan(0);
    const vehicles = ((await (await get('vehicles', name)).json()) as Answer).rows;
    expect(vehicles.map((r) => Number(r.vehicle_id)).sort()).toEqual([...mine].sort());
    const mileage = ((await (await get('mileage', name)).json()) as Answer).rows;
    expect(mileage.length).toBeGreaterThan(0);
    for (const r of mileage) expect(mine).toContain(Number(r.vehicle_id));
    // the trips of that department's vehicles, as the simulator drove them
    const trips = ((await (await get('trips', name)).json()) as Answer & { total_rows?: number }).rows;
    const truth = h.fleet.truth
      .trips(h.fleet.startMs, h.fleet.endMs)
      .filter((t) => mine.includes(t.vehicle_id) && t.start_ms >= h.fleet.startMs);
    expect(trips.map((r) => String(r.trip_id)).sort()).toEqual(truth.map((t) => t.trip_id).sort());
  });

  it('a name that looks like SQL is a name matching nothing; over 200 characters or a line break is refused', async () => {
    const sqlish = await get('vehicles', "x' OR 1=1;--");
    expect(sqlish.status).toBe(200);
    expect(((await sqlish.json()) as Answer).rows).toEqual([]);
    const long = await get('vehicles', 'x'.repeat(201));
    expect(long.status).toBe(400);
    expect(await long.text()).toMatch(/department: must be a department name of at most 200 characters/);
    const broken = await get('vehicles', 'Ops\nNorth');
    expect(broken.status).toBe(400);
    expect(await broken.text()).toMatch(/department: must be a department name without control characters/);
  });
});
