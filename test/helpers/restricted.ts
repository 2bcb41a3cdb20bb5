/**
 * An account that differs from the spec (issue 23): its subuser may not read GET /drivers (403)
 * and the account has no GET /vehicles/activity (404). Syncs the harness' history with the
 * subuser's credentials (`demo-sub`) into the harness' database and returns the run and the client.
 */
import { expect } from 'vitest';
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { syncAccount } from '../../src/wiring.ts';
import type { Harness } from './synced.ts';

export async function syncRestrictedSubuser(h: Harness): Promise<{ client: FleetClient; run: RunSummary }> {
  h.sim.setAccess({ missing: ['GET /vehicles/activity'], subuser: { forbidden: ['GET /drivers'] } });
  const client = createFleetClient({
    now: Date.now,
    baseUrl: h.sim.baseUrl,
    username: 'demo',
    password: 'demo-sub',
    timezone: h.fleet.timezone,
    windowMs: 1000,
  });
  const run = await syncAccount(
    { ...h.deps, client },
    { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
  );
  expect(run.outcome).toBe('ok');
  return { client, run };
}
