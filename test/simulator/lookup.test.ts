/**
 * The simulator's lookups (src/simulator/lookup.ts) answer what the linear scans they replace did:
 * plates, positions, slices by key, and the instant a record reaches the API.
 */
import { describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { firstWhere } from '../../src/simulator/gen/series.ts';
import {
  findVehicle,
  horizonOf,
  odometerEventsOf,
  reachedFrom,
  sliceByKey,
  vehiclePosition,
} from '../../src/simulator/lookup.ts';
import type { SimVehicle } from '../../src/simulator/model.ts';

const fleet = generateFleet({
  seed: 5,
  vehicles: 40,
  days: 20,
  endDay: '2026-03-10',
  silence: { vehicleIndex: 2, fromDay: 5, days: 3, uploadAfterMs: 7_200_000 },
  odometerEvents: [{ vehicleIndex: 4, day: 3, kind: 'odometer_reset' }],
});

describe('simulator lookups', () => {
  it('find a vehicle by plate or position as the linear scans do', () => {
    for (const [i, v] of fleet.vehicles.entries()) {
      expect(findVehicle(fleet, v.registration)).toBe(
        fleet.vehicles.find((x) => x.registration === v.registration),
      );
      expect(vehiclePosition(fleet, v)).toBe(i);
    }
    for (const odd of [undefined, null, 7, '', fleet.vehicles[0]!.registration.toUpperCase(), {}])
      expect(findVehicle(fleet, odd)).toBe(fleet.vehicles.find((x) => x.registration === odd));
    expect(vehiclePosition(fleet, { ...fleet.vehicles[0]! })).toBe(-1);
  });

  it("list a vehicle's odometer events as the fleet-wide filter does", () => {
    for (const v of fleet.vehicles)
      expect(odometerEventsOf(fleet, v.vehicle_id)).toEqual(
        fleet.odometerEvents.filter((e) => e.vehicle_id === v.vehicle_id),
      );
    expect(fleet.odometerEvents.length).toBeGreaterThan(0);
  });

  it('slice ordered items by key as a filter does', () => {
    const items = [1, 3, 3, 3, 7, 9, 9, 12].map((k, i) => ({ k, i }));
    for (let from = 0; from <= 13; from++)
      for (let to = 0; to <= 13; to++)
        expect(sliceByKey(items, from, to, (x) => x.k)).toEqual(items.filter((x) => x.k >= from && x.k < to));
    expect(firstWhere([], () => true)).toBe(0);
    expect(firstWhere([1, 2], () => false)).toBe(2);
  });

  it('say from when a record has reached the API, as the horizon does (delay and silence)', () => {
    const cases: SimVehicle[] = [
      fleet.vehicles[2]!, // silent
      fleet.vehicles.find((v) => v.report_delay_ms > 0) ?? fleet.vehicles[0]!,
      fleet.vehicles[0]!,
    ];
    expect(cases[0]!.silence).toBeDefined();
    const s = cases[0]!.silence!;
    const instants = [
      s.from_ms - 60_000,
      s.from_ms,
      s.from_ms + 1,
      s.upload_ms - 1,
      s.upload_ms,
      s.upload_ms + 90_000,
    ];
    for (const v of cases)
      for (const end of [...instants, fleet.startMs, fleet.endMs])
        for (const now of [...instants, fleet.endMs, fleet.endMs + 86_400_000, end + v.report_delay_ms])
          expect(now >= reachedFrom(v, end)).toBe(end <= horizonOf(v, now));
    expect(reachedFrom(cases[2]!, 0.5)).toBe(Infinity);
  });
});
