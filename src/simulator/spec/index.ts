/**
 * The spec's endpoints that the sync never reads: vehicle commands, status and driver linkage,
 * events and voltage, EV data, delivery jobs and vision cameras, with the state clients build up
 * through them (`state.ts`). They keep the simulator a faithful copy of the API for the spec tests
 * (test/simulator/spec-*.test.ts); the routes the sync reads live in ../routes/.
 *
 * server.ts mounts these after the sync's routes, under /rest, behind the same auth, buckets,
 * faults and rate limits.
 */
import type { Route } from '../routes/common.ts';
import { commandRoutes } from './commands.ts';
import { deliveryRoutes } from './delivery.ts';
import { eventRoutes } from './events.ts';
import { evEventRoutes } from '../routes/ev.ts';
import { statusRoutes } from './status.ts';
import { visionRoutes } from './vision.ts';

export { deliveryWriteForbidden } from './delivery.ts';
export { createSpecState, type SpecState } from './state.ts';

export const SPEC_ROUTES: readonly Route[] = [
  ...commandRoutes,
  ...statusRoutes,
  ...eventRoutes,
  ...evEventRoutes,
  ...deliveryRoutes,
  ...visionRoutes,
];
