/**
 * The simulated world a sync benchmark runs against: a generated fleet served by the simulator
 * on port 0 in the parent process, on the real-time clock from a base just after the fleet's
 * history (so every window has settled), with the documented limits on a shortened window.
 * Both the parent (simulator) and the children (sync, baseline) compute `now` from the same
 * `base` and `t0`, so their clocks agree.
 */
import type { BucketName as ClientBucket } from '../src/api/client.ts';
import { BUCKET_LIMITS } from '../src/api/client.ts';
import { generateFleet } from '../src/simulator/generate.ts';
import type { Fleet } from '../src/simulator/model.ts';
import { BUCKETS, type BucketName as SimBucket } from '../src/simulator/ratelimit.ts';
import { startSimulator, type SimulatorHandle } from '../src/simulator/server.ts';
import { localDate } from '../src/time.ts';

/** Fixed end of history, so every run of the benchmark syncs byte-for-byte the same fleet. */
export const END_DAY = '2026-09-30';
export const SEED = 42;

/** Client bucket name → simulator bucket name (the two modules spell the POST buckets differently). */
const SIM_NAME: Record<ClientBucket, SimBucket> = {
  default: 'default',
  fuel_consumed_bulk: 'fuel_consumed_post',
  fuel_level_bulk: 'fuel_level_post',
  ev_consumption: 'ev_consumption_post',
  ev_range: 'ev_range_post',
  ev_soc: 'ev_soc_post',
  vext: 'vehicles_vext',
  vehicles_status: 'vehicles_status',
  vehicles_events: 'vehicles_events',
  vehicle_events: 'vehicle_events',
  vehicle_idling: 'vehicle_idling',
  vision_status: 'vision_status',
};

export interface Limits {
  windowMs: number;
  /** Every documented limit times this factor (1 = the documented counts). */
  scale: number;
  client: Partial<Record<ClientBucket, number>>;
  sim: Partial<Record<SimBucket, number>>;
}

export function scaledLimits(windowMs: number, scale: number): Limits {
  const client: Partial<Record<ClientBucket, number>> = {};
  const sim: Partial<Record<SimBucket, number>> = {};
  for (const [name, limit] of Object.entries(BUCKET_LIMITS) as [ClientBucket, number][]) {
    const l = Math.max(1, Math.round(limit * scale));
    client[name] = l;
    sim[SIM_NAME[name]] = l;
  }
  if (Object.keys(sim).length !== BUCKETS.length)
    throw new Error('bucket tables of client and simulator differ');
  return { windowMs, scale, client, sim };
}

export interface WorldArgs {
  baseUrl: string;
  simUrl: string;
  base: number;
  t0: number;
  timezone: string;
  firstDay: string;
  lastDay: string;
  windowMs: number;
  limits: Partial<Record<ClientBucket, number>>;
}

export interface World {
  fleet: Fleet;
  sim: SimulatorHandle;
  args: WorldArgs;
  close(): Promise<void>;
}

export async function startWorld(vehicles: number, days: number, limits: Limits): Promise<World> {
  const fleet = generateFleet({ seed: SEED, vehicles, days, endDay: END_DAY });
  const base = fleet.endMs + 4 * 86_400_000;
  const t0 = Date.now();
  const now = () => base + (Date.now() - t0);
  const sim = await startSimulator({ fleet, now, windowMs: limits.windowMs, limits: limits.sim });
  return {
    fleet,
    sim,
    args: {
      baseUrl: sim.baseUrl,
      simUrl: sim.url,
      base,
      t0,
      timezone: fleet.timezone,
      firstDay: localDate(fleet.startMs, fleet.timezone),
      lastDay: localDate(fleet.endMs - 1, fleet.timezone),
      windowMs: limits.windowMs,
      limits: limits.client,
    },
    close: () => sim.close(),
  };
}

export const clockOf = (a: Pick<WorldArgs, 'base' | 't0'>) => () => a.base + (Date.now() - a.t0);

/** Genuine 429s and requests per bucket, read from the simulator's counters. */
export async function simStats(simUrl: string): Promise<{ rateLimited: number; requests: number }> {
  const r = await fetch(`${simUrl}/__sim/stats`);
  const s = (await r.json()) as { total: number; rateLimited: Record<string, number> };
  return { rateLimited: Object.values(s.rateLimited).reduce((a, b) => a + b, 0), requests: s.total };
}
