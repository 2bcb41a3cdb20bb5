/**
 * EV energy: battery-electric vehicles' energy per local day from the bulk
 * POST /vehicles/ev-consumption (≤ 24 h, up to 100 vehicles a request, its own 10/min bucket).
 * One request covers a day for up to 100 EVs, so a fleet's nightly cost is one request per open
 * day per 100 EVs. A vehicle the API leaves out of the answer has no energy data for that day:
 * its window is empty (incomplete while in the look-back, as for fuel). The costs report turns the
 * kWh into a cost (the prices file's `electric` price per kWh) and CO₂ (the grid factor).
 */
import { BUCKET_LIMITS } from '../../api/buckets.ts';
import type { EvConsumption } from '../../api/types.ts';
import { BULK_MAX_VEHICLES } from '../../defaults.ts';
import { emptyStatus, isCovered, settledStatus, type LedgerEntry } from '../ledger.ts';
import { defineStream } from '../stream.ts';
import { iso } from '../../time.ts';
import { vehicleWindowRange, type StreamContext, type Unit, type VehicleRef } from '../unit.ts';
import type { Window } from '../windows.ts';

function energyEntry(ctx: StreamContext, v: VehicleRef, w: Window, e: EvConsumption | null): LedgerEntry {
  const base = {
    stream: 'ev_energy' as const,
    scope: String(v.vehicle_id),
    startMs: w.startMs,
    endMs: w.endMs,
  };
  if (!e)
    return {
      ...base,
      requests: 0,
      rows: 0,
      ...emptyStatus(ctx, w, base.scope, 'no EV energy data for the period'),
    };
  const s = settledStatus(ctx, w, base.scope);
  return { ...base, requests: 0, rows: 1, status: s.status, reason: s.reason };
}

/** One ≤ 24 h window for up to 100 EVs; a ledger row per vehicle (the request booked on the first). */
export function evEnergyUnit(vehicles: VehicleRef[], w: Window): Unit {
  return {
    stream: 'ev_energy',
    ledgerStream: 'ev_energy',
    scope: vehicles.map((v) => v.vehicle_id).join(','),
    window: w,
    bucket: 'ev_consumption',
    estRequests: 1,
    label: `ev energy (${vehicles.length}) ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      const list = await ctx.client.getEvConsumptionBulk(
        vehicles.map((v) => v.registration),
        w.startMs,
        w.endMs,
        { meter, signal: ctx.signal },
      );
      const byReg = new Map(list.map((e) => [e.registration, e]));
      const per = vehicles.map((v) => {
        const e = byReg.get(v.registration) ?? null;
        return { v, e, entry: energyEntry(ctx, v, w, e) };
      });
      if (per[0]) per[0].entry.requests = meter.requests;
      const rows = per
        .filter((p) => p.e)
        .map(({ v, e }) => ({
          account: ctx.account,
          vehicle_id: v.vehicle_id,
          window_start: w.startMs,
          window_end: w.endMs,
          energy_consumed_kwh: e!.energy_consumed_kwh,
          energy_charged_kwh: e!.energy_charged_kwh,
          distance_m: e!.distance_m,
          start_soc_pct: e!.start_soc_pct,
          end_soc_pct: e!.end_soc_pct,
        }));
      return {
        ledger: per.map((p) => p.entry),
        deletes: per.map((p) => vehicleWindowRange('ev_energy', p.v.vehicle_id, w)),
        inserts: [{ table: 'ev_energy', key: ['account', 'vehicle_id', 'window_start'], rows }],
        rows: rows.length,
      };
    },
  };
}

export const evEnergy = defineStream({
  name: 'ev_energy',
  ledgerStreams: ['ev_energy'],
  grid: 'day',
  scope: 'vehicle',
  endpoints: ['POST /vehicles/ev-consumption'],
  buckets: ['ev_consumption'],
  tables: ['ev_energy'],
  // Its own 10/min bucket is the run's longest chain on a long range (a day a request): start it
  // first, on a limiter of its own, so units waiting for that bucket never hold the shared pool.
  // As many in flight as the bucket takes in a window, so the first window's sends leave at once
  // (every later window's wait is counted from them). Safe against a busy server because the
  // bucket counts each send from its answer (src/api/buckets.ts).
  startOrder: 0.5,
  maxInFlight: BUCKET_LIMITS.ev_consumption,
  needs: ['vehicles'],
  async plan(ctx) {
    const evs = ctx.vehicles.filter((v) => v.electric);
    if (!evs.length) return [];
    const ledger = await ctx.ledger('ev_energy');
    const units: Unit[] = [];
    for (const w of ctx.grid('day')) {
      const need = evs.filter((v) => !isCovered(w, ledger.get(String(v.vehicle_id))));
      for (let i = 0; i < need.length; i += BULK_MAX_VEHICLES)
        units.push(evEnergyUnit(need.slice(i, i + BULK_MAX_VEHICLES), w));
    }
    return units;
  },
});
