/**
 * The one place that wires things together: the Fleet API client and the sync's dependencies for
 * an account, from the config. `sync`, `serve` (and its scheduler) and `demo` all build them here,
 * and all run a sync through `syncAccount`: the run, then the release-notes check beside it.
 */
import type { AccountConfig } from './accounts.ts';
import { createFleetClient, type FleetClient } from './api/client.ts';
import { checkApiChangesAfterSync } from './changes/after-sync.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { Clock } from './time.ts';
import { describeLimits } from './sync-options.ts';
import type { Database } from './store/db.ts';
import { runSync } from './sync/run.ts';
import type { RunSummary, SyncDeps, SyncRequest } from './sync/types.ts';

/** The config settings the wiring reads. */
export type WiringConfig = Pick<Config, 'rateWindowMs' | 'httpTimeoutMs' | 'concurrency'> &
  Partial<Pick<Config, 'breakerFailures' | 'breakerMs' | 'maxLateMs' | 'sites'>>;

/** The API client of one account (its own rate buckets and connections); close it after use. */
export function fleetClientFor(a: AccountConfig, config: WiringConfig, log: Logger, now: Clock): FleetClient {
  return createFleetClient({
    now,
    baseUrl: a.baseUrl,
    username: a.username,
    password: a.password,
    timezone: a.timezone,
    windowMs: config.rateWindowMs,
    timeoutMs: config.httpTimeoutMs,
    concurrency: config.concurrency,
    breakerFailures: config.breakerFailures,
    breakerMs: config.breakerMs,
    ...(a.limits ? { limits: a.limits } : {}),
    log: log.child({ account: a.account }),
  });
}

/** A client and the sync's dependencies for one account; `extra` gives the clock and adds run options (signal, progress…). */
export function wireAccount(
  db: Database,
  a: AccountConfig,
  config: WiringConfig,
  log: Logger,
  extra: Partial<SyncDeps> & Pick<SyncDeps, 'now'>,
): { client: FleetClient; deps: SyncDeps } {
  const client = fleetClientFor(a, config, log, extra.now);
  // Limits granted case by case (FLEETSYNC_LIMITS, the account's `limits`): named at each start.
  for (const line of describeLimits(a.limits)) log.info(line, { account: a.account });
  const deps: SyncDeps = {
    db,
    client,
    account: a.account,
    timezone: a.timezone,
    baseUrl: a.baseUrl,
    windowMs: config.rateWindowMs,
    ...(a.limits ? { limits: a.limits } : {}),
    concurrency: config.concurrency,
    ...(config.maxLateMs === undefined ? {} : { maxLateMs: config.maxLateMs }),
    log,
    ...(a.changelogUrl ? { changelogUrl: a.changelogUrl } : {}),
    ...(a.zoneSetting ? { zoneSetting: a.zoneSetting } : {}),
    ...(a.workingHours ? { workingHours: a.workingHours } : {}),
    ...(config.sites ? { sites: config.sites } : {}),
    ...extra,
  };
  return { client, deps };
}

/** The streams an account's runs pull when a run names none (FLEETSYNC_STREAMS, the account's `streams`). */
export const accountStreams = (a: Pick<AccountConfig, 'streams'>): { streams?: readonly string[] } =>
  a.streams ? { streams: a.streams } : {};

/** One sync run of an account, then the API release-notes check beside it. */
export async function syncAccount(deps: SyncDeps, req: SyncRequest): Promise<RunSummary> {
  return checkApiChangesAfterSync(deps, await runSync(deps, req));
}
