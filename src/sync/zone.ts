/**
 * The account's zone is fixed. It is recorded with the account on its first sync (the `accounts`
 * table); every later run — `sync`, `serve`'s schedule and POST /api/sync, a worker's job — is
 * checked against it before it sends a request. A different zone (FLEET_TIMEZONE changed, or unset
 * so the default applies) would lay a second, shifted grid of windows over the stored one and count
 * totals twice, so the run is refused (E_CONFIG, exit 2) naming both zones and the way to change it:
 * `fleetsync sync --rezone` (src/sync/rezone.ts).
 *
 * The API's own timestamps carry the offset of the zone it answers in; src/api/wire.ts compares
 * each with the configured zone's offset at that instant (`zoneMismatchError`), and a mismatch
 * stops the run (executor.stopsTheRun) before what it fetched is written.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';
import { queryJs } from '../store/queries.ts';

/** The zone recorded with the account, or null before its first sync. */
export async function recordedZone(con: DuckDBConnection, account: string): Promise<string | null> {
  const [row] = await queryJs(con, 'sync/account_zone', [account]);
  return typeof row?.timezone === 'string' ? row.timezone : null;
}

/**
 * Refuses a run whose zone differs from the one recorded with the account (E_CONFIG, exit 2).
 * Returns the recorded zone (null: a first sync, which records `zone`).
 */
export async function checkAccountZone(
  con: DuckDBConnection,
  who: { account: string; timezone: string; zoneSetting?: string | undefined },
): Promise<string | null> {
  const recorded = await recordedZone(con, who.account);
  if (recorded === null || recorded === who.timezone) return recorded;
  const setting = who.zoneSetting ?? 'FLEET_TIMEZONE';
  throw new FleetsyncError(
    'E_CONFIG',
    `account ${who.account} was first synced in ${recorded} and its windows are stored in that zone, ` +
      `but ${setting} is ${who.timezone}: nothing was sent or changed. ` +
      `Set the zone back to ${recorded}, or move the account to ${who.timezone} with ` +
      '`fleetsync sync --rezone`, which pulls every window again in the new zone and replaces the old ones in one transaction (see docs/operations.md, "Changing the account\'s zone").',
    { details: { account: who.account, recordedZone: recorded, configuredZone: who.timezone } },
  );
}
