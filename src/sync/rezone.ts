/**
 * `fleetsync sync --rezone`: moves an account to the zone now configured. Every window of the
 * account is pulled again under the new zone — the span it covers, as local days of the new zone —
 * into a staging DuckDB file beside the database (`<db>.rezone-<account>.duckdb`, with its own
 * ledger, so an interrupted re-zone resumes where it stopped). Only when that run is complete
 * (outcome ok) are the stored windows replaced by the staging ones, with the recorded zone, in one
 * transaction (src/store/rezone.ts); then the staging file is removed. Until then the database is
 * untouched and keeps refusing runs in the new zone, so no total is ever counted in both zones.
 */
import { existsSync, rmSync } from 'node:fs';
import { FleetsyncError } from '../errors.ts';
import { openDatabase } from '../store/db.ts';
import { queryJs } from '../store/queries.ts';
import { swapInRezoned } from '../store/rezone.ts';
import { localDate } from '../time.ts';
import { lockAccount } from './lock.ts';
import { runSync } from './run.ts';
import { BUILTIN_STREAMS } from './streams/index.ts';
import type { RezoneSummary, SyncDeps } from './types.ts';
import { recordedZone } from './zone.ts';

/** The staging file of an account's re-zone, beside the database. */
export const rezoneStagingPath = (dbPath: string, account: string) => `${dbPath}.rezone-${account}.duckdb`;

function removeFile(path: string) {
  for (const p of [path, `${path}.wal`]) rmSync(p, { force: true });
}

export async function rezoneAccount(deps: SyncDeps): Promise<RezoneSummary> {
  const account = deps.account;
  const toZone = deps.timezone;
  const defs = deps.streams ?? BUILTIN_STREAMS;
  const windowed = defs.filter((d) => d.ledgerStreams.length > 0);
  const now = deps.now;
  const log = deps.log.child({ account });
  if (deps.db.path === ':memory:') throw new FleetsyncError('E_USAGE', 'a re-zone needs a database file');
  const staging = rezoneStagingPath(deps.db.path, account);
  const unlock = lockAccount(deps.db, account);
  const con = await deps.db.connect();
  try {
    const fromZone = await recordedZone(con, account);
    if (fromZone === null)
      throw new FleetsyncError(
        'E_USAGE',
        `account ${account} has no recorded zone yet (never synced): a plain \`fleetsync sync\` records ${toZone}`,
      );
    const [span] = await queryJs(con, 'sync/rezone_range', [account]);
    const first = span?.first_start as Date | null | undefined;
    const last = span?.last_end as Date | null | undefined;
    const today = localDate(now(), toZone);
    const fromDay = first ? localDate(first.getTime(), toZone) : today;
    const lastDay = last ? localDate(last.getTime() - 1, toZone) : today;
    const toDay = lastDay < today ? lastDay : today;
    const summary: RezoneSummary = {
      account,
      fromZone,
      toZone,
      fromDay,
      toDay,
      status: 'unchanged',
      tables: {},
      run: null,
    };
    if (fromZone === toZone) {
      // A swap interrupted after its commit leaves only the staging file behind.
      removeFile(staging);
      return summary;
    }
    // A staging file for another target zone (an earlier, abandoned re-zone) is started over.
    if (existsSync(staging)) {
      const old = await openDatabase(staging);
      const c = await old.connect();
      const stagedZone = await recordedZone(c, account).finally(() => c.closeSync());
      old.close();
      if (stagedZone !== null && stagedZone !== toZone) removeFile(staging);
    }
    log.info('re-zone: pulling every window again', { from: fromDay, to: toDay, fromZone, toZone });
    const stagingDb = await openDatabase(staging);
    try {
      summary.run = await runSync(
        { ...deps, db: stagingDb, changelogUrl: false },
        { fromDay, toDay, trigger: 'cli' },
      );
    } finally {
      stagingDb.close();
    }
    if (summary.run.outcome !== 'ok') {
      summary.status = 'not_applied';
      return summary;
    }
    summary.tables = await swapInRezoned(con, {
      stagingPath: staging,
      account,
      zone: toZone,
      tables: windowed.flatMap((d) => d.tables),
      ledgerStreams: windowed.flatMap((d) => d.ledgerStreams),
    });
    summary.status = 'applied';
    removeFile(staging);
    log.info('re-zone applied', { fromZone, toZone, tables: JSON.stringify(summary.tables) });
    return summary;
  } finally {
    unlock();
    con.closeSync();
  }
}

/** The re-zone's outcome in words (sync --rezone's stdout). */
export function formatRezone(s: RezoneSummary): string {
  if (s.status === 'unchanged') return `account ${s.account} is already in ${s.toZone}: nothing to re-zone`;
  const head = `re-zone of account ${s.account} from ${s.fromZone} to ${s.toZone} (${s.fromDay} to ${s.toDay}, local days in ${s.toZone})`;
  if (s.status === 'not_applied')
    return (
      `${head}: NOT applied — the re-pull ended ${s.run?.outcome ?? 'unknown'} ` +
      `(${s.run?.errors.length ?? 0} failure(s)); the stored data and zone are unchanged. ` +
      'Run `fleetsync sync --rezone` again: it resumes from what was pulled.'
    );
  const rows = Object.entries(s.tables)
    .map(([t, n]) => `  ${t}: ${n.before} → ${n.after} rows`)
    .join('\n');
  return `${head}: applied in one transaction (run ${s.run?.run_id ?? '-'}, ${s.run?.requests ?? 0} requests)\n${rows}`;
}
