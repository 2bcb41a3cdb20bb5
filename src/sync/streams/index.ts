/**
 * The registry of built-in streams, in the order a run lists them (and pulls the snapshots).
 * STREAMS, the start order, the planner's loop and the change watch's endpoints derive from it.
 * A run may be given another list (SyncDeps.streams) — e.g. this one plus a declared stream.
 */
import type { StreamDefinition } from '../stream.ts';
import { activity } from './activity.ts';
import { bookings } from './bookings.ts';
import { carpool } from './carpool.ts';
import { drivers } from './drivers.ts';
import { evEnergy } from './ev-energy.ts';
import { fuel } from './fuel.ts';
import { fuelLevelHistory } from './fuel-level-history.ts';
import { geofences } from './geofences.ts';
import { odometer } from './odometer.ts';
import { trips } from './trips.ts';
import { vehicles } from './vehicles.ts';
import { visits } from './visits.ts';

export const BUILTIN_STREAMS = [
  vehicles,
  geofences,
  carpool,
  trips,
  odometer,
  fuel,
  fuelLevelHistory,
  visits,
  bookings,
  drivers,
  activity,
  evEnergy,
] as const;

/** The name of a built-in stream. */
export type BuiltinStreamName = (typeof BUILTIN_STREAMS)[number]['name'];

export const streamNames = <N extends string>(defs: readonly StreamDefinition<N>[]): N[] =>
  defs.map((d) => d.name);

/** The built-in streams, in registry order. */
export const STREAMS: readonly BuiltinStreamName[] = streamNames(BUILTIN_STREAMS);
export type StreamName = BuiltinStreamName;

/** The endpoints the streams call, each once, in registry order: the change watch protects these. */
export function endpointsOf(defs: readonly StreamDefinition[]): string[] {
  return [...new Set(defs.flatMap((d) => d.endpoints))];
}

export function streamNamed(defs: readonly StreamDefinition[], name: string): StreamDefinition | undefined {
  return defs.find((d) => d.name === name);
}
