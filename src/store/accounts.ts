/**
 * Which account a command reads. The configured one (FLEETSYNC_ACCOUNT, else the API username);
 * with neither set, the database's only account — so `FLEETSYNC_DB=data/demo.duckdb fleetsync
 * export mileage` reads the demo without further configuration. Several accounts and none
 * configured is a usage error naming them, never an empty report.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';

export async function accountsIn(con: DuckDBConnection): Promise<string[]> {
  const r = await con.runAndReadAll('SELECT account FROM accounts ORDER BY account');
  return r.getRowObjectsJS().map((x) => String(x.account));
}

export async function resolveAccount(
  con: DuckDBConnection,
  config: Pick<Config, 'account' | 'accountSource'>,
  opts: { mustExist?: boolean } = {},
): Promise<string> {
  const all = await accountsIn(con);
  if (config.accountSource !== 'default') {
    if (opts.mustExist && all.length > 0 && !all.includes(config.account))
      throw new FleetsyncError(
        'E_USAGE',
        `this database holds no data for account ${JSON.stringify(config.account)} (${config.accountSource}); it holds: ${all.join(', ')}`,
      );
    return config.account;
  }
  if (all.length === 1) return all[0]!;
  if (all.length > 1)
    throw new FleetsyncError(
      'E_USAGE',
      `this database holds several accounts (${all.join(', ')}): set FLEETSYNC_ACCOUNT to choose one`,
    );
  return config.account;
}
