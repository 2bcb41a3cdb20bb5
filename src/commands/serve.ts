/**
 * `fleetsync serve`: dashboard + JSON API + scheduler (FLEETSYNC_SCHEDULE, in the account's
 * zone, no overlapping runs) in one process that owns the DuckDB file. Stops on SIGINT/SIGTERM.
 */
import { createFleetClient } from '../api/client.ts';
import { resolveAccount } from '../store/accounts.ts';
import { loadConfig, secretsOf, type Config } from '../config.ts';
import { createLogger, type Logger } from '../log.ts';
import { openDatabase, type Database } from '../store/db.ts';
import type { RunSyncFn } from '../server/sync-gate.ts';
import { startServer } from '../server/start.ts';
import type { Command } from './command.ts';

/**
 * The production sync for the server: a client per run (closed afterwards) and runSync from the
 * sync engine, imported lazily. Without API credentials there is no sync (POST /api/sync → 503).
 */
export async function productionRunSync(
  db: Database,
  config: Readonly<Config>,
  log: Logger,
  signal: AbortSignal,
): Promise<RunSyncFn | undefined> {
  if (!config.baseUrl || !config.username || !config.password) return undefined;
  let mod: typeof import('../sync/run.ts');
  try {
    mod = await import('../sync/run.ts');
  } catch (e) {
    log.warn('sync engine not available; POST /api/sync will answer 503', { error: String(e) });
    return undefined;
  }
  return async (trigger) => {
    const client = createFleetClient({
      baseUrl: config.baseUrl!,
      username: config.username!,
      password: config.password!,
      timezone: config.timezone,
      windowMs: config.rateWindowMs,
      log,
    });
    try {
      return await mod.runSync(
        {
          db,
          client,
          account: config.account,
          timezone: config.timezone,
          baseUrl: config.baseUrl!,
          windowMs: config.rateWindowMs,
          log,
          signal,
        },
        { trigger },
      );
    } finally {
      await client.close();
    }
  };
}

export const serveCommand: Command = {
  summary: 'Dashboard, JSON API and scheduled syncs (FLEETSYNC_SCHEDULE) in one process.',
  usage: 'fleetsync serve   (FLEETSYNC_HOST, FLEETSYNC_PORT, FLEETSYNC_SCHEDULE, FLEETSYNC_TOKEN)',
  options: {},
  async run(_args, ctx) {
    const loaded = loadConfig(ctx.env);
    const log = createLogger({
      level: loaded.logLevel,
      secrets: secretsOf(loaded),
      write: (line) => ctx.stderr(line + '\n'),
    });
    const db = await openDatabase(loaded.dbPath);
    try {
      const con = await db.connect();
      const account = await resolveAccount(con, loaded).finally(() => con.closeSync());
      const config = Object.freeze({ ...loaded, account });
      const runSync = await productionRunSync(db, config, log, ctx.stopSignal);
      const server = await startServer({ db, config, log, ...(runSync ? { runSync } : {}) });
      ctx.stdout(`fleetsync dashboard: ${server.url}\n`);
      if (config.schedule) {
        const next = server.nextRun();
        ctx.stdout(
          runSync
            ? `scheduled sync: "${config.schedule}" (${config.timezone}); next run ${next?.toISOString() ?? 'unknown'}\n`
            : 'scheduled sync: off (no API credentials configured)\n',
        );
      }
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
