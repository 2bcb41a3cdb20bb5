import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateFleet,
  defaultEndDay,
  resolveFleetOptions,
  DEFAULT_FLEET_OPTIONS,
  findLandmarks,
} from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { isFleetsyncError } from '../../src/errors.ts';

const END_DAY = '2026-05-10'; // 120 days back covers Sydney's DST end (2026-04-05) and three month ends

function fingerprint(f: Fleet): string {
  const h = createHash('sha256');
  const put = (x: unknown) => h.update(JSON.stringify(x));
  put([f.options, f.startMs, f.endMs, f.vehicles, f.geofences, f.drivers, f.carpoolVehicles]);
  put([f.bookingRules, f.carpoolSettings, f.bookings, f.odometerEvents, f.fuelCounterResets]);
  for (const v of f.vehicles)
    put([f.tripsOf(v.vehicle_id), f.visitsOf(v.vehicle_id), f.fillsOf(v.vehicle_id)]);
  return h.digest('hex');
}

describe('generateFleet determinism', () => {
  it('same options give the same bytes; another seed gives other data', () => {
    const a = fingerprint(generateFleet({ endDay: END_DAY }));
    const b = fingerprint(generateFleet({ endDay: END_DAY }));
    const c = fingerprint(generateFleet({ endDay: END_DAY, seed: 43 }));
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it("a vehicle's data does not depend on the fleet size", () => {
    const small = generateFleet({ endDay: END_DAY, vehicles: 5 });
    const big = generateFleet({ endDay: END_DAY, vehicles: 20 });
    for (const v of small.vehicles) {
      const id = v.vehicle_id;
      expect(JSON.stringify(big.vehicles.find((x) => x.vehicle_id === id))).toBe(JSON.stringify(v));
      expect(JSON.stringify(big.tripsOf(id))).toBe(JSON.stringify(small.tripsOf(id)));
      expect(JSON.stringify(big.visitsOf(id))).toBe(JSON.stringify(small.visitsOf(id)));
      expect(JSON.stringify(big.fillsOf(id))).toBe(JSON.stringify(small.fillsOf(id)));
    }
  });

  it('defaults: seed 42, 20 vehicles, 120 days in Sydney ending yesterday', () => {
    const now = Date.parse('2026-06-30T15:00:00Z'); // 01:00 on 1 July in Sydney
    expect(defaultEndDay(now, 'Australia/Sydney')).toBe('2026-06-30');
    expect(defaultEndDay(now, 'UTC')).toBe('2026-06-29');
    expect(resolveFleetOptions({}, now)).toEqual({ ...DEFAULT_FLEET_OPTIONS, endDay: '2026-06-30' });
    const f = generateFleet({ days: 3 }, now);
    expect(f.options.endDay).toBe('2026-06-30');
    expect(f.endMs).toBe(Date.parse('2026-06-30T14:00:00Z')); // local midnight after endDay (AEST, +10)
    expect(f.endMs - f.startMs).toBe(3 * 86_400_000);
  });

  it('rejects bad options with a coded error naming each problem', () => {
    let err: unknown;
    try {
      generateFleet({ vehicles: 0, timezone: 'Mars/Base', endDay: '2026-02-31' });
    } catch (e) {
      err = e;
    }
    expect(isFleetsyncError(err, 'E_USAGE')).toBe(true);
    expect(String((err as Error).message)).toMatch(/vehicles.*timezone.*endDay/);
  });

  it('prints how long the default fleet takes (not an assertion)', () => {
    const t0 = performance.now();
    const f = generateFleet({ endDay: END_DAY });
    const t1 = performance.now();
    let trips = 0;
    let visits = 0;
    let fills = 0;
    for (const v of f.vehicles) {
      trips += f.tripsOf(v.vehicle_id).length;
      visits += f.visitsOf(v.vehicle_id).length;
      fills += f.fillsOf(v.vehicle_id).length;
    }
    const t2 = performance.now();
    console.log(
      `default fleet: ${f.vehicles.length} vehicles, ${trips} trips, ${visits} visits, ${fills} fills, ` +
        `${f.bookings.length} bookings; generateFleet ${(t1 - t0).toFixed(0)} ms, all series ${(t2 - t1).toFixed(0)} ms`,
    );
    expect(trips).toBeGreaterThan(1000);
  });

  it('findLandmarks points at every special case of the default fleet', () => {
    const f = generateFleet({ endDay: END_DAY });
    const l = findLandmarks(f);
    expect(l.midnightTrip).not.toBeNull();
    expect(l.monthEndTrip).not.toBeNull();
    expect(l.parked!.toMs - l.parked!.fromMs).toBeGreaterThanOrEqual(21 * 86_400_000);
    expect(f.truth.distanceM(l.parked!.vehicle_id, l.parked!.fromMs, l.parked!.toMs)).toBe(0);
    for (const k of ['lateReporterId', 'odometerReset', 'trackerChange', 'counterResetVehicleId'] as const)
      expect(l[k], k).not.toBeNull();
    for (const k of ['listedTwiceFill', 'electricId', 'noSensorId'] as const) expect(l[k], k).not.toBeNull();
    expect(Object.keys(l.traps).sort()).toEqual([
      'auto_approved',
      'declined_by_one_department',
      'returned_at_after_end',
      'returned_late_before_end',
    ]);
  });
});
