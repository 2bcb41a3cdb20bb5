/**
 * Vision cameras. Every third vehicle of the fleet (index 0, 3, 6, …) carries a two-channel
 * camera; a camera is online while the vehicle's ignition is ON and for 10 minutes after.
 *
 *   GET  /vision/status                       6/min; {data: [{vehicle_id, registration,
 *                                             has_camera, online, last_online_ts, cameras[]}]}
 *   POST /vision/livestream/{registration}    body {channel?: 1|2} → {data: {stream_url, …}}
 *   POST /vision/video/upload                 body {registration, start_timestamp, end_timestamp
 *                                             (≤ 5 min), channel?} → 202 {data: {upload_id, …}}
 *   POST /vision/videos/requests              body {registration, start_timestamp,
 *                                             end_timestamp (≤ 5 min), channels?} → 202
 *
 * The three POSTs answer 404 (not 422, as before the latest release) for a registration that
 * does not exist, the same as for a vehicle the caller cannot access: the simulated subuser is
 * not granted the Executive department's vehicles (`visionAccessible`), which it neither sees in
 * /vision/status nor can address (404). A vehicle without a camera → 422.
 */
import { findVehicle, horizonOf, vehiclePosition } from '../lookup.ts';
import type { Fleet, SimVehicle } from '../model.ts';
import { objectBody, specRoute, type SpecContext } from './state.ts';
import { tripAtOrBefore, wireTs } from '../wire.ts';
import { ApiError, parseWindow, type Route } from '../routes/common.ts';

const ONLINE_AFTER_OFF_MS = 10 * 60_000;
const CLIP_CAP_S = 5 * 60;

/** The subuser is not granted the Executive department; the main account sees everything. */
export const visionAccessible = (v: SimVehicle, isSubuser: boolean) =>
  !isSubuser || v.department !== 'Executive';

export const hasCamera = (fleet: Fleet, v: SimVehicle) => vehiclePosition(fleet, v) % 3 === 0;

function lastOnline(fleet: Fleet, v: SimVehicle, h: number): { online: boolean; lastMs: number | null } {
  const t = tripAtOrBefore(fleet.tripsOf(v.vehicle_id), h);
  if (!t) return { online: false, lastMs: null };
  const offAt = t.end_ms + ONLINE_AFTER_OFF_MS;
  return { online: h < offAt, lastMs: Math.min(h, offAt) };
}

/** The vehicle the request names, 404 when unknown or not accessible to the caller. */
function accessibleVehicle(ctx: SpecContext, registration: unknown): SimVehicle {
  const v = typeof registration === 'string' ? findVehicle(ctx.fleet, registration) : undefined;
  if (!v || !visionAccessible(v, ctx.isSubuser))
    throw new ApiError(404, 'Vehicle not found or not accessible.');
  if (!hasCamera(ctx.fleet, v)) throw new ApiError(422, 'The vehicle has no vision camera.');
  return v;
}

function clipWindow(ctx: SpecContext, b: Record<string, unknown>) {
  return parseWindow(
    b.start_timestamp,
    b.end_timestamp,
    ['start_timestamp', 'end_timestamp'],
    ctx.fleet.timezone,
    CLIP_CAP_S,
  );
}

function channelsOf(value: unknown): number[] {
  if (value === undefined || value === null) return [1];
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((c) => c === 1 || c === 2))
    throw new ApiError(422, 'The channels must be 1 and/or 2.');
  return [...new Set(list as number[])];
}

export const visionRoutes: Route[] = [
  specRoute('GET', '/vision/status', (ctx) => ({
    body: {
      data: ctx.fleet.vehicles
        .filter((v) => visionAccessible(v, ctx.isSubuser))
        .map((v) => {
          const cam = hasCamera(ctx.fleet, v);
          const s = cam ? lastOnline(ctx.fleet, v, horizonOf(v, ctx.now)) : { online: false, lastMs: null };
          const ts = s.lastMs === null ? null : wireTs(s.lastMs, ctx.fleet.timezone);
          return {
            vehicle_id: v.vehicle_id,
            registration: v.registration,
            has_camera: cam,
            online: s.online,
            last_online_ts: ts,
            cameras: cam ? [1, 2].map((channel) => ({ channel, online: s.online, last_online_ts: ts })) : [],
          };
        }),
    },
  })),
  specRoute('POST', '/vision/livestream/{registration}', (ctx) => {
    const v = accessibleVehicle(ctx, ctx.params.registration);
    const [channel] = channelsOf(ctx.body === undefined ? undefined : objectBody(ctx).channel);
    const id = ctx.spec.nextId++;
    ctx.spec.visionRequests.push({
      request_id: `live-${id}`,
      kind: 'livestream',
      vehicle_id: v.vehicle_id,
      at_ms: ctx.now,
    });
    return {
      body: {
        data: {
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          channel,
          online: lastOnline(ctx.fleet, v, horizonOf(v, ctx.now)).online,
          stream_url: `https://vision.example.invalid/live/${v.vehicle_id}/${channel}?session=${id}`,
          expires_ts: wireTs(ctx.now + 10 * 60_000, ctx.fleet.timezone),
        },
      },
    };
  }),
  specRoute('POST', '/vision/video/upload', (ctx) => {
    const b = objectBody(ctx);
    const v = accessibleVehicle(ctx, b.registration);
    clipWindow(ctx, b);
    const [channel] = channelsOf(b.channel);
    const upload_id = `vup-${ctx.spec.nextId++}`;
    ctx.spec.visionRequests.push({
      request_id: upload_id,
      kind: 'upload',
      vehicle_id: v.vehicle_id,
      at_ms: ctx.now,
    });
    return {
      status: 202,
      body: { data: { upload_id, vehicle_id: v.vehicle_id, channel, status: 'PENDING' } },
    };
  }),
  specRoute('POST', '/vision/videos/requests', (ctx) => {
    const b = objectBody(ctx);
    const v = accessibleVehicle(ctx, b.registration);
    const w = clipWindow(ctx, b);
    const channels = channelsOf(b.channels);
    const request_id = `vreq-${ctx.spec.nextId++}`;
    ctx.spec.visionRequests.push({ request_id, kind: 'clip', vehicle_id: v.vehicle_id, at_ms: ctx.now });
    return {
      status: 202,
      body: {
        data: {
          request_id,
          vehicle_id: v.vehicle_id,
          registration: v.registration,
          channels,
          start_timestamp: wireTs(w.startMs, ctx.fleet.timezone),
          end_timestamp: wireTs(w.endMs - 1000, ctx.fleet.timezone),
          status: 'REQUESTED',
        },
      },
    };
  }),
];
