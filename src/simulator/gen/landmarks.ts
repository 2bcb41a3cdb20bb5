/**
 * Where a fleet's special cases are, so sync and report tests can aim at them without
 * re-deriving them: the first trip across local midnight and across a local month end, the
 * longest parked spell, the late-reporting vehicle, the vehicles with odometer / counter events,
 * the listed-twice fill, an electric and a sensorless vehicle, and one booking per trap.
 */
import { localDate, localMonth } from '../../time.ts';
import type { Fleet, OdometerEvent, SimBooking, SimFill, SimTrip } from '../model.ts';

export interface FleetLandmarks {
  midnightTrip: SimTrip | null;
  monthEndTrip: SimTrip | null;
  /** Longest gap between two trips of an ordinary (non-carpool) vehicle inside history. */
  parked: { vehicle_id: number; fromMs: number; toMs: number } | null;
  lateReporterId: number | null;
  odometerReset: OdometerEvent | null;
  trackerChange: OdometerEvent | null;
  counterResetVehicleId: number | null;
  listedTwiceFill: SimFill | null;
  electricId: number | null;
  noSensorId: number | null;
  traps: Partial<Record<NonNullable<SimBooking['trap']>, SimBooking>>;
}

export function findLandmarks(f: Fleet): FleetLandmarks {
  const z = f.timezone;
  const carpool = new Set(f.carpoolVehicles.map((c) => c.vehicle_id));
  let midnightTrip: SimTrip | null = null;
  let monthEndTrip: SimTrip | null = null;
  let parked: FleetLandmarks['parked'] = null;
  let listedTwiceFill: SimFill | null = null;
  for (const v of f.vehicles) {
    const trips = f.tripsOf(v.vehicle_id);
    trips.forEach((t, i) => {
      if (localDate(t.start_ms, z) !== localDate(t.end_ms - 1, z)) {
        midnightTrip ??= t;
        if (!monthEndTrip && localMonth(t.start_ms, z) !== localMonth(t.end_ms - 1, z)) monthEndTrip = t;
      }
      const prev = trips[i - 1];
      if (
        prev &&
        !carpool.has(v.vehicle_id) &&
        (!parked || t.start_ms - prev.end_ms > parked.toMs - parked.fromMs)
      )
        parked = { vehicle_id: v.vehicle_id, fromMs: prev.end_ms, toMs: t.start_ms };
    });
    listedTwiceFill ??= f.fillsOf(v.vehicle_id).find((x) => x.listed_twice === true) ?? null;
  }
  const traps: FleetLandmarks['traps'] = {};
  for (const b of f.bookings) if (b.trap) traps[b.trap] ??= b;
  return {
    midnightTrip,
    monthEndTrip,
    parked,
    lateReporterId: f.vehicles.find((v) => v.report_delay_ms > 0)?.vehicle_id ?? null,
    odometerReset: f.odometerEvents.find((e) => e.kind === 'odometer_reset') ?? null,
    trackerChange: f.odometerEvents.find((e) => e.kind === 'terminal_has_changed') ?? null,
    counterResetVehicleId: f.fuelCounterResets[0]?.vehicle_id ?? null,
    listedTwiceFill,
    electricId: f.vehicles.find((v) => v.powertrain === 'electric')?.vehicle_id ?? null,
    noSensorId: f.vehicles.find((v) => v.powertrain === 'none')?.vehicle_id ?? null,
    traps,
  };
}
