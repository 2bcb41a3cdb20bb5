/** One run per account at a time in a process (per database): the first stage of a run. */
import { FleetsyncError } from '../errors.ts';
import type { Database } from '../store/db.ts';

const running = new WeakMap<Database, Set<string>>();

/** Claims `account` on `db`; throws E_SYNC_BUSY while another run holds it. Returns the release. */
export function lockAccount(db: Database, account: string): () => void {
  const busy = running.get(db) ?? new Set<string>();
  running.set(db, busy);
  if (busy.has(account))
    throw new FleetsyncError(
      'E_SYNC_BUSY',
      `a sync of account ${account} is already running in this process`,
    );
  busy.add(account);
  return () => busy.delete(account);
}
