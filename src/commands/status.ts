/**
 * `fleetsync status`: last runs, coverage per stream, flagged and failed windows, failed snapshots.
 * Exit 0 only when the last run of every account was ok and no window or snapshot failed; 3 while
 * a run was partial or failed windows remain; 1 when a last run failed; 5 when the database file
 * could not take the write-ahead log (src/store/checkpoint.ts). When a running `serve`
 * holds the database, the same report comes from its GET /api/status (FLEETSYNC_HOST/PORT).
 */
import { loadConfig } from '../config.ts';
import { FleetsyncError, describeError, isFleetsyncError } from '../errors.ts';
import { readOutcomes } from '../outcome/outcomes.ts';
import { openDatabase } from '../store/db.ts';
import { EXIT_NOT_CHECKPOINTED, recordCheckpoint } from '../store/checkpoint.ts';
import { buildStatus, formatStatus, outsideOf, withCheckpoint, type StatusReport } from '../status/report.ts';
import { askRunningServer } from '../status/remote.ts';
import type { Command } from './command.ts';

export const statusCommand: Command = {
  summary:
    'Last runs, coverage per stream, flagged and failed windows (asks a running serve when it holds the DB).',
  usage: 'fleetsync status [--runs N] [--json]',
  options: { runs: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, ctx) {
    const config = loadConfig(ctx.env);
    const n = values.runs === undefined ? 10 : Number(values.runs);
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      throw new FleetsyncError('E_USAGE', '--runs must be a whole number from 1 to 1000');
    let report: StatusReport;
    let source: string | undefined;
    // The state file beside the database: runs whose row could not be written, runs that died.
    // Read before the database is opened, and said first when there is one: a database that
    // aborts while it opens still leaves this on the screen.
    const outcomes = readOutcomes(config.dbPath);
    const early = outsideOf([], outcomes, config.timezone).filter((r) => r.outcome !== 'ok');
    if (early.length && values.json !== true)
      ctx.stderr(
        early
          .map((r) => `state file: account ${r.account}: run ${r.run_id} ${r.outcome}: ${r.reason ?? ''}\n`)
          .join(''),
      );
    // a database file that cannot take the write-ahead log (src/store/checkpoint.ts): exit 5
    let unwritten: string | null = null;
    try {
      const db = await openDatabase(config.dbPath, { mustExist: true });
      const con = await db.connect();
      try {
        report = await buildStatus(con, {
          database: config.dbPath,
          zone: config.timezone,
          runs: n,
          nowMs: ctx.now(),
          outcomes: { ...outcomes, checkpoint: null },
        });
        // Last (a checkpoint that fails leaves the instance unusable): one that succeeds now
        // clears a failure kept in the state file; one that fails is kept and said.
        const failure = await recordCheckpoint(db, ctx.now());
        unwritten = failure?.problem ?? null;
        report = withCheckpoint(report, failure);
      } finally {
        con.closeSync();
        db.close();
      }
    } catch (e) {
      if (!isFleetsyncError(e, 'E_DB_LOCKED')) {
        // The database cannot be opened: what the state file knows still decides the exit code.
        if (early.length) {
          ctx.stderr(`the database cannot be read: ${describeError(e)}\n`);
          return 1;
        }
        throw e;
      }
      ({ report, url: source } = await askRunningServer(config, n, e));
    }
    ctx.stdout(values.json === true ? JSON.stringify(report, null, 2) + '\n' : formatStatus(report, source));
    if (unwritten) ctx.stderr(`warning: ${unwritten}\n`);
    return report.verdict.exit_code || (unwritten ? EXIT_NOT_CHECKPOINTED : 0);
  },
};
