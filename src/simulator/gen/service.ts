/**
 * The simulated fleet's service history (issue 28 item 4), and its truth: a service plan (the
 * fleet's interval, one per vehicle where the scenario needs it) with each serviced vehicle's last
 * service at a local month start inside the history and the odometer reading the tracker showed
 * then; and the distance the odometer rule counts since then (`countedSinceM`: the distance really
 * driven, less the local days of the vehicle's odometer events, which the rule leaves out).
 *
 * The scenario, by vehicle index: every 4th has no service recorded (unknown); the others are
 * serviced at the last month start of the history and given an interval that leaves them overdue
 * (90 % of what they drove since), due (500 km to go, inside the 1,000 km warning) or ok (20,000 km
 * to go; also every vehicle that drove under 2,000 km since); a month-based interval (12 months)
 * applies to all.
 */
import type { Fleet } from '../model.ts';
import { localDate, localDayBounds, localMonth, localMonthBounds } from '../../time.ts';

/** Below this many km since the service a vehicle is given an interval that leaves it ok. */
const MIN_ROLE_KM = 2000;

/** A plan the service plan file takes (docs/service.md), as the simulator's history writes it. */
export interface SimServicePlan {
  warning: { km: number; days: number };
  intervals: { vehicle_id?: number; every_km?: number; every_months?: number }[];
  services: { vehicle_id: number; date: string; odometer_km: number }[];
}

/** The local midnights that start a local month inside [startMs, endMs). */
function monthStarts(fleet: Fleet): number[] {
  const out: number[] = [];
  let month = localMonth(fleet.startMs, fleet.timezone);
  for (;;) {
    const b = localMonthBounds(month, fleet.timezone);
    if (b.startMs >= fleet.endMs) return out;
    if (b.startMs >= fleet.startMs) out.push(b.startMs);
    month = localMonth(b.endMs, fleet.timezone);
  }
}

/** Distance the odometer rule counts for a vehicle in [fromMs, toMs): the truth less its event days. */
export function countedSinceM(fleet: Fleet, vehicleId: number, fromMs: number, toMs: number): number {
  let m = fleet.truth.distanceM(vehicleId, fromMs, toMs);
  const days = new Set<string>();
  for (const e of fleet.odometerEvents)
    if (e.vehicle_id === vehicleId && e.at_ms >= fromMs && e.at_ms < toMs)
      days.add(localDate(e.at_ms, fleet.timezone));
  for (const day of days) {
    const b = localDayBounds(day, fleet.timezone);
    m -= fleet.truth.distanceM(vehicleId, Math.max(b.startMs, fromMs), Math.min(b.endMs, toMs));
  }
  return m;
}

/** The last service of each serviced vehicle (index ≢ 0 mod 4): the history's last month start. */
export function simulatedServices(fleet: Fleet): { vehicle_id: number; atMs: number; odometer_km: number }[] {
  const starts = monthStarts(fleet);
  const at = starts[starts.length - 1] ?? fleet.startMs;
  return fleet.vehicles.flatMap((v, i) =>
    i % 4 === 0
      ? []
      : [
          {
            vehicle_id: v.vehicle_id,
            atMs: at,
            odometer_km: Math.round(fleet.odometerAt(v.vehicle_id, at)) / 1000,
          },
        ],
  );
}

/** The plan file of the scenario above. */
export function simulatedServicePlan(fleet: Fleet): SimServicePlan {
  const services = simulatedServices(fleet);
  const intervals: SimServicePlan['intervals'] = [{ every_km: 100_000, every_months: 12 }];
  services.forEach((s) => {
    const i = fleet.vehicles.findIndex((v) => v.vehicle_id === s.vehicle_id);
    const km = countedSinceM(fleet, s.vehicle_id, s.atMs, fleet.endMs) / 1000;
    // a vehicle that hardly drove since (parked, a spare) is ok: "due in 500 km" would be its interval
    const role = km < MIN_ROLE_KM ? 3 : i % 4;
    const every =
      role === 1 ? Math.floor(km * 0.9) : role === 2 ? Math.ceil(km + 500) : Math.ceil(km + 20_000);
    intervals.push({ vehicle_id: s.vehicle_id, every_km: every, every_months: 12 });
  });
  return {
    warning: { km: 1000, days: 30 },
    intervals,
    services: services.map((s) => ({
      vehicle_id: s.vehicle_id,
      date: localDate(s.atMs, fleet.timezone),
      odometer_km: s.odometer_km,
    })),
  };
}
