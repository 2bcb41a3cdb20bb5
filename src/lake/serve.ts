/**
 * `fleetsync serve --lake DIR`: the dashboard, API and downloads for every account of a Parquet
 * lake, read-only (no sync, no schedule), from an in-memory DuckDB with views over the lake. Run
 * as many as wanted, on any machine that reaches the lake. Nothing is recorded here (a service done
 * is refused, saying where to record it). The workers' job outcomes kept in the
 * lake (outcomes.ts) make /healthz, /api/status and the pages show failed, stale and
 * never-published accounts.
 */
import { loadConfig } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { startServer } from '../server/start.ts';
import type { RunContext } from '../commands/command.ts';
import { readOutcomes } from './outcomes.ts';
import { lakeAccounts, openLake } from './read.ts';

export async function serveLake(lakeDir: string, ctx: RunContext): Promise<number> {
  if (!lakeDir.trim()) throw new FleetsyncError('E_USAGE', '--lake: name the lake directory');
  const loaded = loadConfig(ctx.env);
  const log = createLogger({
    now: ctx.now,
    level: loaded.logLevel,
    format: loaded.logFormat,
    write: (line) => ctx.stderr(line + '\n'),
  });
  const db = await openLake(lakeDir);
  try {
    const first = lakeAccounts(lakeDir)[0];
    const config = Object.freeze({ ...loaded, schedule: null, account: first ?? loaded.account });
    const server = await startServer({
      now: ctx.now,
      db,
      config,
      log,
      schedule: null,
      accounts: () => lakeAccounts(lakeDir),
      jobs: () => readOutcomes(lakeDir),
      lake: true,
    });
    ctx.stdout(`fleetsync dashboard (lake ${lakeDir}, read-only): ${server.url}\n`);
    await new Promise<void>((resolve) => {
      if (ctx.stopSignal.aborted) resolve();
      else ctx.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    return 0;
  } finally {
    db.close();
  }
}
