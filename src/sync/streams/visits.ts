/**
 * Geofence visits: fleet-wide GET /geofences/visits over ≤24-hour windows (local days; a 25-hour
 * DST day is two windows). A visit has no id: its key is (vehicle, geofence, enter time), so one
 * seen by two windows is stored once. The API lists a visit only once the vehicle has left the
 * geofence, so recent windows stay open (incomplete).
 *
 * Two ledger streams: `visits` (the toll visits, in geofence_visits, as the toll reports have
 * always read them) and `sites` (every other geofence's visits, in site_geofence_visits). With sites
 * chosen (FLEETSYNC_SITES, sync/sites.ts: every site by default) a window missing from either is
 * one unfiltered request, which returns toll and site visits together — as cheap as the toll
 * request alone while a day's visits fit in a page — and records both; with `none`, a window is
 * `filter[is_toll]=true` as before and records `visits` only.
 */
import type { GeofenceVisit } from '../../api/types.ts';
import { iso } from '../../time.ts';
import { siteKept, describeSites, type SiteSelection } from '../../sites.ts';
import { defineStream, type PlanContext } from '../stream.ts';
import { pointWindow, type FetchResult, type StreamContext, type Unit } from '../unit.ts';
import type { Window } from '../windows.ts';

const KEY = ['account', 'vehicle_id', 'geofence_id', 'enter_time'] as const;

const rowOf = (ctx: StreamContext, v: GeofenceVisit, isToll: boolean | null) => ({
  account: ctx.account,
  vehicle_id: v.vehicle_id,
  geofence_id: v.geofence_id,
  enter_time: v.enter_ms,
  exit_time: v.exit_ms,
  registration: v.registration,
  geofence_name: v.geofence_name,
  is_toll: isToll,
  // an open visit (no exit) has no dwell yet: unknown, never 0
  duration_s: v.duration_s ?? (v.exit_ms === null ? null : (v.exit_ms - v.enter_ms) / 1000),
  extra_fields: v.extra_fields,
});

/** A fleet-wide day window of GET /geofences/visits (its failures recorded under `visits`). */
const dayUnit = (w: Window, estPages: number, what: string, fetch: Unit['fetch']): Unit => ({
  stream: 'visits',
  ledgerStream: 'visits',
  scope: '*',
  window: w,
  bucket: 'default',
  estRequests: estPages,
  label: `${what} ${iso(w.startMs).slice(0, 13)}`,
  fetch,
});

export function visitsUnit(w: Window, estPages: number): Unit {
  return dayUnit(w, estPages, 'toll visits', async (ctx, meter) => {
    const visits = await ctx.client.listVisits(
      w.startMs,
      w.endMs,
      { isToll: true },
      { meter, signal: ctx.signal },
    );
    const rows = visits
      .filter((v) => v.enter_ms >= w.startMs && v.enter_ms < w.endMs)
      .map((v) => rowOf(ctx, v, v.is_toll ?? true));
    return pointWindow(ctx, {
      stream: 'visits',
      window: w,
      table: 'geofence_visits',
      at: 'enter_time',
      key: KEY,
      rows,
      times: rows.map((r) => r.enter_time),
      requests: meter.requests,
    });
  });
}

/**
 * One window of every geofence's visits (no is_toll filter): toll visits (the visit's is_toll
 * true) to geofence_visits, the others (false, or not said) to site_geofence_visits when the selection
 * keeps their geofence; both ledger streams recorded.
 */
export function allVisitsUnit(w: Window, estPages: number, sites: SiteSelection): Unit {
  const kept = siteKept(sites);
  return dayUnit(w, estPages, 'visits', async (ctx, meter): Promise<FetchResult> => {
    const visits = (
      await ctx.client.listVisits(w.startMs, w.endMs, {}, { meter, signal: ctx.signal })
    ).filter((v) => v.enter_ms >= w.startMs && v.enter_ms < w.endMs);
    const tolls = visits.filter((v) => v.is_toll === true).map((v) => rowOf(ctx, v, true));
    // A visit whose toll flag is not said is kept whatever the selection (the toll model may
    // count it by its geofence's flag).
    const sites = visits
      .filter((v) => v.is_toll !== true && (v.is_toll === null || kept(v.geofence_name)))
      .map((v) => rowOf(ctx, v, v.is_toll));
    const toll = pointWindow(ctx, {
      stream: 'visits',
      window: w,
      table: 'geofence_visits',
      at: 'enter_time',
      key: KEY,
      rows: tolls,
      times: tolls.map((r) => r.enter_time),
      requests: meter.requests,
    });
    const site = pointWindow(ctx, {
      stream: 'sites',
      window: w,
      table: 'site_geofence_visits',
      at: 'enter_time',
      key: KEY,
      rows: sites,
      times: sites.map((r) => r.enter_time),
      requests: 0,
    });
    return {
      ledger: [...toll.ledger, ...site.ledger],
      deletes: [...toll.deletes, ...site.deletes],
      inserts: [...toll.inserts, ...site.inserts],
      rows: toll.rows + site.rows,
    };
  });
}

async function plan(ctx: PlanContext): Promise<Unit[]> {
  const days = ctx.grid('day');
  const sites = ctx.sites ?? { kind: 'all' };
  const tollGaps = await ctx.gaps('visits', days, '*');
  if (sites.kind === 'none') {
    ctx.note(
      'visits: toll geofences only (FLEETSYNC_SITES=none): GET /geofences/visits?filter[is_toll]=true per day',
    );
    return tollGaps.map((w) => visitsUnit(w, ctx.pages(ctx.rates.visitsPerDay, w)));
  }
  const siteGaps = await ctx.gaps('sites', days, '*');
  const missing = (w: Window, gaps: readonly Window[]) => gaps.some((g) => g.startMs === w.startMs);
  const units = days
    .filter((w) => missing(w, tollGaps) || missing(w, siteGaps))
    .map((w) => allVisitsUnit(w, ctx.pages(ctx.rates.visitsPerDay + ctx.rates.siteVisitsPerDay, w), sites));
  const requests = units.reduce((n, u) => n + u.estRequests, 0);
  const tollOnly = tollGaps.reduce((n, w) => n + ctx.pages(ctx.rates.visitsPerDay, w), 0);
  ctx.note(
    `visits: toll geofences and ${describeSites(sites)}: ${units.length} day window(s), ${requests} request(s) on the default bucket ` +
      `(GET /geofences/visits unfiltered; toll visits alone would be ${tollOnly}, ` +
      `${siteGaps.filter((w) => !missing(w, tollGaps)).length} day(s) pulled again for their sites)`,
  );
  return units;
}

export const visits = defineStream({
  name: 'visits',
  ledgerStreams: ['visits', 'sites'],
  grid: 'day',
  scope: 'fleet',
  endpoints: ['GET /geofences/visits'],
  buckets: ['default'],
  tables: ['geofence_visits', 'site_geofence_visits'],
  startOrder: 1,
  needs: ['geofences'],
  plan,
});
