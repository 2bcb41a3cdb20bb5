/**
 * Vehicle activity: fleet-wide GET /vehicles/activity, one local day per request
 * (`filter[date]`), every vehicle, paginated. The window is the whole local day (a 25-hour day
 * when the clocks go back is still one request: the API takes a date, not a range). A day synced
 * again replaces that day's rows; a day in the look-back for late data stays incomplete and is
 * pulled again later, like every other stream.
 */
import { PAGE_LIMIT } from '../../defaults.ts';
import { localDate } from '../../time.ts';
import { defineStream } from '../stream.ts';
import { pointWindow, type Unit } from '../unit.ts';
import { dayWindows, type Window } from '../windows.ts';

/** Local days are one window each, however long (23, 24 or 25 hours). */
const WHOLE_DAY_MS = 26 * 3_600_000;

export function activityUnit(w: Window, day: string, estPages: number): Unit {
  return {
    stream: 'activity',
    ledgerStream: 'activity',
    scope: '*',
    window: w,
    bucket: 'default',
    estRequests: estPages,
    label: `activity ${day}`,
    async fetch(ctx, meter) {
      const items = await ctx.client.listVehicleActivity(day, { meter, signal: ctx.signal });
      const rows = items
        .filter((a) => a.date === day) // an item of another day is not this window's
        .map((a) => ({
          account: ctx.account,
          vehicle_id: a.vehicle_id,
          day_start: w.startMs,
          local_day: Date.parse(`${day}T00:00:00Z`),
          registration: a.registration,
          first_ignition_on: a.first_ignition_on_ms,
          last_ignition_off: a.last_ignition_off_ms,
          idle_s: a.idle_s,
          driving_s: a.driving_s,
          driver_ids: JSON.stringify(a.driver_ids),
          extra_fields: a.extra_fields,
        }));
      return pointWindow(ctx, {
        stream: 'activity',
        window: w,
        table: 'vehicle_activity',
        at: 'day_start',
        key: ['account', 'vehicle_id', 'day_start'],
        rows,
        times: rows.map(() => w.startMs),
        requests: meter.requests,
      });
    },
  };
}

export const activity = defineStream({
  name: 'activity',
  ledgerStreams: ['activity'],
  grid: 'day',
  scope: 'fleet',
  endpoints: ['GET /vehicles/activity'],
  buckets: ['default'],
  tables: ['vehicle_activity'],
  startOrder: 1.2, // one request per day for the whole fleet: after the toll visits, before the bookings
  needs: ['vehicles'],
  async plan(ctx) {
    const days = dayWindows(ctx.range.startMs, ctx.range.endMs, ctx.zone, WHOLE_DAY_MS);
    const pages = Math.max(1, Math.ceil(ctx.vehicles.length / PAGE_LIMIT));
    return (await ctx.gaps('activity', days, '*')).map((w) =>
      activityUnit(w, localDate(w.startMs, ctx.zone), pages),
    );
  },
});
