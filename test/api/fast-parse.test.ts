/**
 * The parse's fast path (src/api/wire.ts `fast`) gives the records zod gives, or leaves the item
 * to zod: each building block over the wire's odd values, and every list the sync reads from the
 * simulator over HTTP, read once with the fast path and once through zod alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
import { schemasFor } from '../../src/api/schemas.ts';
import {
  bool,
  fastReader,
  intId,
  MISS,
  num,
  optBool,
  optIntId,
  optNum,
  optStr,
  optStrOrNull,
  optTs,
  parseCounts,
  setFastPath,
  str,
  strId,
  ts,
} from '../../src/api/wire.ts';
import { localDayBounds } from '../../src/time.ts';
import { startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

const ZONE = 'Australia/Sydney';

/** Values the wire sends, and ones it must not: every type, blanks, numeric and timestamp text. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  0,
  1,
  -0,
  2,
  1.5,
  -7,
  1e20,
  '12',
  ' 12 ',
  '1.5',
  '1e3',
  'x',
  'abc',
  true,
  false,
  'true',
  'FALSE',
  'True',
  '1',
  '0',
  'yes',
  [],
  [1],
  {},
  { a: 1 },
  1_712_000_000,
  1_712_000_000_000,
  '2026-04-02 10:32:41+11',
  '2026-04-02T10:32:41+11:00',
  '2026-04-02 10:32:41+1100',
  '2026-04-02 10:32:41+10', // not Sydney's offset on that day
  '2026-04-10 10:32:41+10', // Sydney's after the change
  '2026-04-02T10:32:41Z',
  '2026-04-02 10:32:41',
  '2026-04-02 10:32:41.250+11',
  '2026-02-29 10:00:00+11',
  '2026-04-02 24:00:00+11',
  '2026-04-02 10:32:41+11 ',
];

const BLOCKS: [string, z.ZodType][] = [
  ['num', num],
  ['optNum', optNum],
  ['intId', intId],
  ['optIntId', optIntId],
  ['strId', strId],
  ['str', str],
  ['bool', bool],
  ['optBool', optBool],
  ['optStr', optStr],
  ['optStrOrNull', optStrOrNull],
  ['ts', ts(ZONE)],
  ['optTs', optTs(ZONE)],
];

describe('building blocks', () => {
  it.each(BLOCKS)('%s: the fast path reads what zod reads, or leaves it to zod', (_name, schema) => {
    const read = fastReader(schema)!;
    expect(read).toBeTypeOf('function');
    let taken = 0;
    for (const v of VALUES) {
      const fast = read(v);
      const slow = schema.safeParse(v);
      if (fast === MISS) continue;
      taken++;
      // Whatever the fast path reads, zod reads too, to the same value (−0 and 0 told apart).
      expect(slow.success, `${JSON.stringify(v)}`).toBe(true);
      expect(Object.is(fast, slow.data) || JSON.stringify(fast) === JSON.stringify(slow.data)).toBe(true);
      expect(fast).toStrictEqual(slow.data);
    }
    expect(taken).toBeGreaterThan(0);
  });

  it('reads the wire forms themselves (no fallback for what the API sends)', () => {
    const read = (s: z.ZodType, v: unknown) => fastReader(s)!(v);
    expect(read(ts(ZONE), '2026-04-02 10:32:41+11')).toBe(Date.parse('2026-04-01T23:32:41Z'));
    expect(read(ts(ZONE), '2026-04-10T10:32:41+10:00')).toBe(Date.parse('2026-04-10T00:32:41Z'));
    expect(read(ts(ZONE), '2026-04-02T10:32:41Z')).toBe(Date.parse('2026-04-02T10:32:41Z'));
    expect(read(num, '12.5')).toBe(12.5);
    expect(read(optNum, '')).toBeNull();
    expect(read(intId, '17')).toBe(17);
    expect(read(bool, 'FALSE')).toBe(false);
    expect(read(optStr, 42)).toBe('42');
    // What it is not sure of goes to zod: the offset of another zone, a fraction, no offset.
    expect(read(ts(ZONE), '2026-04-02 10:32:41+10')).toBe(MISS);
    expect(read(ts(ZONE), '2026-04-02 10:32:41.250+11')).toBe(MISS);
    expect(read(ts(ZONE), '2026-04-02 10:32:41')).toBe(MISS);
    expect(read(intId, 1.5)).toBe(MISS);
  });

  it('records: an unknown enum value and unexpected fields are kept on the fast path', () => {
    const S = schemasFor(ZONE);
    const trip = {
      trip_id: 9,
      vehicle_id: '3',
      registration: 'AB 1',
      start_timestamp: '2026-04-02 10:00:00+11',
      end_timestamp: '2026-04-02 10:30:00+11',
      trip_distance: '1500',
      trip_type: 'TRIP_TYPE_TELEPORT',
      max_speed: 'fast', // another type than expected: kept as sent, not read
      co2_grams: 321, // unknown to this version
    };
    const fast = fastReader(S.trip)!(trip);
    expect(fast).not.toBe(MISS);
    expect(fast).toStrictEqual(S.trip.parse(trip));
    expect(fast).toMatchObject({
      trip_id: '9',
      vehicle_id: 3,
      trip_type: 'TRIP_TYPE_TELEPORT',
      trip_type_known: false,
      max_speed: null,
      extra_fields: '{"max_speed":"fast","co2_grams":321}',
    });
    // A required field missing: not read here, so zod names it.
    const { trip_distance: _d, ...noDistance } = trip;
    expect(fastReader(S.trip)!(noDistance)).toBe(MISS);
    expect(S.trip.safeParse(noDistance).success).toBe(false);
    // A fill without its amount: the record's own check (post) sends it to zod.
    const fill = { vehicle_id: 3, registration: 'AB 1', fill_timestamp: '2026-04-02 10:00:00+11' };
    expect(fastReader(S.fuelFill)!(fill)).toBe(MISS);
    expect(S.fuelFill.safeParse(fill).success).toBe(false);
  });
});

describe('every list the sync reads from the simulator', () => {
  let t: TestSim;
  let client: FleetClient;
  beforeAll(async () => {
    t = await startTestSim();
    client = createFleetClient({
      baseUrl: t.sim.baseUrl,
      username: 'demo',
      password: 'demo-main',
      timezone: t.fleet.timezone,
      now: t.now,
    });
  });
  afterAll(async () => {
    setFastPath(true);
    await client?.close();
    await t?.sim.close();
  });

  /** Every list the streams read, over the fleet's last 10 days (3 vehicles, 3 days where per vehicle). */
  async function readAll(): Promise<Record<string, unknown[]>> {
    const days = ['2026-04-12', '2026-04-13', '2026-04-14'];
    const from = localDayBounds('2026-04-11', ZONE).startMs;
    const to = localDayBounds('2026-04-20', ZONE).endMs;
    const vs = t.fleet.vehicles.slice(0, 3);
    const regs = t.fleet.vehicles.map((v) => v.registration);
    const out: Record<string, unknown[]> = {};
    const add = (k: string, xs: unknown[]) => (out[k] = [...(out[k] ?? []), ...xs]);
    add('vehicles', await client.listVehicles());
    add('geofences', await client.listGeofences());
    add('drivers', await client.listDrivers());
    add('carpoolVehicles', await client.listCarpoolVehicles());
    add('carpoolDrivers', await client.listCarpoolDrivers());
    add('bookings', await client.listBookings(from, to));
    for (const d of days) {
      const b = localDayBounds(d, ZONE);
      add('trips', await client.listTrips(b.startMs, b.endMs));
      add('visits', await client.listVisits(b.startMs, b.endMs));
      add('fills', await client.listAllFuelFills(b.startMs, b.endMs));
      add('activity', await client.listVehicleActivity(d));
      add('fuelConsumed', await client.getFuelConsumedBulk(regs, b.startMs, b.endMs));
      add('fuelLevel', await client.getFuelLevelBulk(regs, b.startMs, b.endMs));
      add('ev', await client.getEvConsumptionBulk(regs, b.startMs, b.endMs));
      for (const v of vs) add('odometer', [await client.getOdometer(v.registration, b.startMs, b.endMs)]);
    }
    for (const v of t.fleet.vehicles)
      add('levelHistory', await client.listFuelLevelHistory(v.registration, from, to));
    return out;
  }

  it('reads the same records with the fast path as through zod alone, and reads the hot lists fast', async () => {
    setFastPath(false);
    const before = { ...parseCounts };
    const slow = await readAll();
    expect(parseCounts.fast).toBe(before.fast);
    setFastPath(true);
    const mid = { ...parseCounts };
    const fast = await readAll();
    expect(fast).toStrictEqual(slow);
    // Ground truth for the counts: the items the lists returned (odometer is a single answer).
    const listed = Object.entries(slow)
      .filter(([k]) => k !== 'odometer')
      .reduce((n, [, xs]) => n + xs.length, 0);
    expect(parseCounts.fast + parseCounts.zod - mid.fast - mid.zod).toBe(listed);
    // The lists with many records and no nested lists of their own all go the fast way.
    for (const k of ['trips', 'visits', 'fills', 'activity', 'fuelConsumed', 'fuelLevel', 'levelHistory'])
      expect(slow[k]!.length, k).toBeGreaterThan(0);
    const slowOnly = ['vehicles', 'carpoolVehicles', 'carpoolDrivers', 'drivers', 'geofences', 'bookings'];
    const others = slowOnly.reduce((n, k) => n + slow[k]!.length, 0);
    expect(parseCounts.zod - mid.zod).toBeLessThanOrEqual(others);
  }, 60_000);
});
