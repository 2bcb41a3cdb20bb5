/**
 * Toll-geofence visits: fleet-wide GET /geofences/visits?filter[is_toll]=true over ≤24-hour
 * windows (local days; a 25-hour DST day is two windows). A visit has no id: its key is
 * (vehicle, geofence, enter time), so one seen by two windows is stored once. The API lists a
 * visit only once the vehicle has left the geofence, so recent windows stay open (incomplete).
 */
import { defineStream } from '../stream.ts';
import { iso } from '../../time.ts';
import { pointWindow, type Unit } from '../unit.ts';
import type { Window } from '../windows.ts';

export function visitsUnit(w: Window, estPages: number): Unit {
  return {
    stream: 'visits',
    ledgerStream: 'visits',
    scope: '*',
    window: w,
    bucket: 'default',
    estRequests: estPages,
    label: `toll visits ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      const visits = await ctx.client.listVisits(
        w.startMs,
        w.endMs,
        { isToll: true },
        { meter, signal: ctx.signal },
      );
      const rows = visits
        .filter((v) => v.enter_ms >= w.startMs && v.enter_ms < w.endMs)
        .map((v) => ({
          account: ctx.account,
          vehicle_id: v.vehicle_id,
          geofence_id: v.geofence_id,
          enter_time: v.enter_ms,
          exit_time: v.exit_ms,
          registration: v.registration,
          geofence_name: v.geofence_name,
          is_toll: v.is_toll ?? true,
          duration_s: v.duration_s ?? (v.exit_ms === null ? null : (v.exit_ms - v.enter_ms) / 1000),
          extra_fields: v.extra_fields,
        }));
      return pointWindow(ctx, {
        stream: 'visits',
        window: w,
        table: 'geofence_visits',
        at: 'enter_time',
        key: ['account', 'vehicle_id', 'geofence_id', 'enter_time'],
        rows,
        times: rows.map((r) => r.enter_time),
        requests: meter.requests,
      });
    },
  };
}

export const visits = defineStream({
  name: 'visits',
  ledgerStreams: ['visits'],
  grid: 'day',
  scope: 'fleet',
  endpoints: ['GET /geofences/visits'],
  buckets: ['default'],
  tables: ['geofence_visits'],
  startOrder: 1,
  needs: ['geofences'],
  async plan(ctx) {
    return (await ctx.gaps('visits', ctx.grid('day'), '*')).map((w) =>
      visitsUnit(w, ctx.pages(ctx.rates.visitsPerDay, w)),
    );
  },
});
