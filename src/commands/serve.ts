/**
 * `fleetsync serve`: dashboard + JSON API + scheduler (FLEETSYNC_SCHEDULE, in the account's
 * zone, no overlapping runs) in one process that owns the DuckDB file. Stops on SIGINT/SIGTERM.
 */
import { FleetsyncError } from '../errors.ts';
import { resolveZone } from '../reports/run.ts';
import { resolveAccount } from '../store/accounts.ts';
import { formatZoned, type Clock } from '../time.ts';
import { loadAccounts, type AccountConfig } from '../accounts.ts';
import { loadConfig, secretsOf, type Config, type Env } from '../config.ts';
import { createLogger, type Logger } from '../log.ts';
import { outcomesFor, type RunOutcomes } from '../outcome/outcomes.ts';
import { loadPricesFile } from '../prices/store.ts';
import { loadServicePlanFile } from '../service/store.ts';
import { openDatabase, SERVING_DB, type Database } from '../store/db.ts';
import { noteCheckpointed } from '../store/checkpoint.ts';
import type { RunSyncFn } from '../server/sync-gate.ts';
import { checkAccountZone } from '../sync/zone.ts';
import { serverDatabase } from '../server/drain.ts';
import { startServer } from '../server/start.ts';
import type { Command } from './command.ts';

/**
 * The production sync for the server: every configured account (FLEETSYNC_CONFIG, or the one in
 * the environment) side by side, a client per account and run (closed afterwards). The summary
 * returned is the dashboard account's; the others are logged. Without API credentials there is
 * no sync (POST /api/sync → 503).
 */
export async function productionRunSync(
  db: Database,
  config: Readonly<Config>,
  log: Logger,
  run: { signal: AbortSignal; now: Clock },
  env: Env = {},
): Promise<RunSyncFn | undefined> {
  const accounts: AccountConfig[] = config.accountsFile
    ? loadAccounts(env, config)
    : config.baseUrl && config.username && config.password
      ? loadAccounts({}, config)
      : [];
  if (accounts.length === 0) return undefined;
  // A zone other than the one recorded with an account is refused at start-up (exit 2), not
  // only at the first scheduled run; every run checks again (runSync).
  const con = await db.connect();
  try {
    for (const a of accounts) await checkAccountZone(con, a);
  } finally {
    con.closeSync();
  }
  const { accountStreams, syncAccount, wireAccount } = await import('../wiring.ts');
  return async (trigger) => {
    const runs = accounts.map(async (a) => {
      const { client, deps } = wireAccount(db, a, config, log, run);
      try {
        return await syncAccount(deps, { trigger, ...accountStreams(a) });
      } finally {
        await client.close();
      }
    });
    const summaries = await Promise.all(runs);
    for (const s of summaries)
      log.info('sync run', { account: s.account, run: s.run_id, outcome: s.outcome });
    return summaries.find((s) => s.account === config.account) ?? summaries[0]!;
  };
}

export const serveCommand: Command = {
  summary: 'Dashboard, JSON API and scheduled syncs (FLEETSYNC_SCHEDULE) in one process.',
  usage:
    'fleetsync serve [--lake DIR]   (FLEETSYNC_HOST, FLEETSYNC_PORT, FLEETSYNC_SCHEDULE, FLEETSYNC_TOKEN; --lake: read-only, every account of a Parquet lake)',
  options: { lake: { type: 'string' } },
  async run({ values }, ctx) {
    if (typeof values.lake === 'string') {
      const { serveLake } = await import('../lake/serve.ts');
      return serveLake(values.lake, ctx);
    }
    const loaded = loadConfig(ctx.env, { runsSchedule: true });
    let outcomes: RunOutcomes | null = null;
    const log = createLogger({
      now: ctx.now,
      level: loaded.logLevel,
      format: loaded.logFormat,
      secrets: [
        ...secretsOf(loaded),
        ...(loaded.accountsFile ? loadAccounts(ctx.env, loaded).map((a) => a.password) : []),
      ],
      write: (line) => {
        ctx.stderr(line + '\n');
        outcomes?.noteLog(line); // the last thing a run said, kept beside the database
      },
    });
    // Every connection counted, the run's and the pack's too: a stop whose wait for them ran out
    // interrupts what they still run before the instance closes (server/stop.ts, server/drain.ts).
    const db = serverDatabase(await openDatabase(loaded.dbPath, SERVING_DB));
    outcomes = outcomesFor(loaded.dbPath, log);
    try {
      // A checkpoint failed earlier: shown by status, /healthz and the pages until one succeeds.
      noteCheckpointed(loaded.dbPath, log);
      const con = await db.connect();
      let account: string;
      let zone: string;
      try {
        account = await resolveAccount(con, loaded);
        // FLEETSYNC_PRICES: refused whole (exit 2, every problem listed) before the server starts.
        await loadPricesFile(con, account, loaded, ctx.now());
        // The pages' zone (stored with the account, else FLEET_TIMEZONE): the schedule and every
        // time printed here use it too.
        zone = await resolveZone(con, account, loaded.timezone);
        // FLEETSYNC_SERVICE_PLAN: the same (docs/service.md); its dates are the account's days.
        await loadServicePlanFile(con, account, loaded, zone, ctx.now());
      } finally {
        con.closeSync();
      }
      const config = Object.freeze({ ...loaded, account });
      const runSync = await productionRunSync(
        db,
        config,
        log,
        { signal: ctx.stopSignal, now: ctx.now },
        ctx.env,
      );
      // loadConfig refused a schedule without credentials; an accounts file without the
      // dashboard's account still has nothing to run.
      if (config.schedule && !runSync)
        throw new FleetsyncError('E_CONFIG', 'FLEETSYNC_SCHEDULE is set, but there is no account to sync');
      // A bad subscriptions file stops the start (exit 2), every problem named.
      const subscriptions = config.subscriptionsFile
        ? (await import('../reports/subscription-file.ts')).readSubscriptions(config.subscriptionsFile)
        : [];
      const server = await startServer({
        db,
        config,
        log,
        zone,
        now: ctx.now,
        subscriptions,
        ...(runSync ? { runSync } : {}),
        warmUp: true,
      });
      ctx.stdout(
        `fleetsync dashboard: ${server.url} — account ${account}, started ${formatZoned(ctx.now(), zone)}\n`,
      );
      if (config.schedule) {
        const next = server.nextRun();
        ctx.stdout(
          `scheduled sync: "${config.schedule}" in ${zone}; next run ${next ? formatZoned(next.getTime(), zone) : 'unknown'}\n`,
        );
      } else ctx.stdout('scheduled sync: none (FLEETSYNC_SCHEDULE is not set)\n');
      if (config.reportSchedule)
        ctx.stdout(
          `month-end pack: "${config.reportSchedule}" in ${zone} to ${config.reportTo.join(', ')} (partial after ${config.reportDeadlineDays} days)\n`,
        );
      if (subscriptions.length)
        ctx.stdout(
          `subscriptions: ${subscriptions.length} from ${config.subscriptionsFile} (${subscriptions.map((x) => x.name).join(', ')}), checked every minute in ${zone}\n`,
        );
      await new Promise<void>((resolve) => {
        if (ctx.stopSignal.aborted) resolve();
        else ctx.stopSignal.addEventListener('abort', () => resolve(), { once: true });
      });
      await server.close();
    } finally {
      db.close();
    }
  },
};
