/**
 * The demo's service plan, written beside the demo database when FLEETSYNC_SERVICE_PLAN is not
 * set, so the service page shows every status: the simulator's service history
 * (src/simulator/gen/service.ts) as a plan file.
 */
import { writeFileSync } from 'node:fs';
import { simulatedServicePlan } from '../simulator/gen/service.ts';
import type { Fleet } from '../simulator/model.ts';

/** Writes the demo service plan file; returns its path. */
export function writeDemoServicePlan(fleet: Fleet, path: string): string {
  writeFileSync(path, JSON.stringify(simulatedServicePlan(fleet), null, 2) + '\n');
  return path;
}
