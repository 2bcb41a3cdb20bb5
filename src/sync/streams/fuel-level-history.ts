/**
 * The tank level series of level-sensor vehicles (`fuel_level_history`): every reading of
 * GET /fuel/level/history/{registration}, ≤ 31-day windows (a local month, cut where the look-back
 * for late data starts), paginated, on the default bucket. Vehicles without a level sensor
 * (fuel_canbus_level / fuel_analog_level) are not asked. The suspected fuel drops are read from
 * it (queries/models/fuel_drops.sql); fuel used never is.
 */
import { defineStream } from '../stream.ts';
import { PAGE_LIMIT } from '../../defaults.ts';
import { DAY_MS, iso } from '../../time.ts';
import { pointWindow, type Unit, type VehicleRef } from '../unit.ts';
import type { Window } from '../windows.ts';

/** Readings a level-sensor vehicle reports per day (hourly heartbeat, trips, fills), for the estimate. */
const READINGS_PER_DAY = 40;

export function fuelLevelHistoryUnit(v: VehicleRef, w: Window, pageLimit: number): Unit {
  const days = Math.max(1, Math.ceil((w.endMs - w.startMs) / DAY_MS));
  return {
    stream: 'fuel_level_history',
    ledgerStream: 'fuel_level_history',
    scope: String(v.vehicle_id),
    window: w,
    bucket: 'default',
    estRequests: Math.max(1, Math.ceil((days * READINGS_PER_DAY) / pageLimit)),
    label: `fuel level series ${v.registration} ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const readings = await ctx.client.listFuelLevelHistory(v.registration, w.startMs, w.endMs, {
        meter,
        signal: ctx.signal,
      });
      const rows = readings.map((r) => ({
        account: ctx.account,
        vehicle_id: v.vehicle_id,
        reading_time: r.ms,
        level_l: r.litres,
        accurate: r.accurate,
      }));
      return pointWindow(ctx, {
        stream: 'fuel_level_history',
        window: w,
        table: 'fuel_level_history',
        at: 'reading_time',
        vehicleId: v.vehicle_id,
        key: ['account', 'vehicle_id', 'reading_time'],
        rows,
        times: readings.map((r) => r.ms),
        requests: meter.requests,
      });
    },
  };
}

export const fuelLevelHistory = defineStream({
  name: 'fuel_level_history',
  ledgerStreams: ['fuel_level_history'],
  grid: 'month',
  scope: 'vehicle',
  endpoints: ['GET /fuel/level/history/{registration}'],
  buckets: ['default'],
  tables: ['fuel_level_history'],
  startOrder: 4.5, // after the fuel stream
  needs: ['vehicles'],
  async plan(ctx) {
    const units: Unit[] = [];
    for (const v of ctx.vehicles.filter((x) => x.fuel_level))
      for (const w of await ctx.gaps('fuel_level_history', ctx.grid('month'), String(v.vehicle_id)))
        units.push(fuelLevelHistoryUnit(v, w, PAGE_LIMIT));
    return units;
  },
});
