/**
 * `fleetsync demo` (and `npm start`): the simulator on a free port with a short limit window, a
 * sync of its whole history into data/demo.duckdb, then the dashboard. No configuration at all.
 * The demo's fleet options are kept beside the database (data/demo.json), so a second start
 * serves the same fleet, reuses the synced file and only fills what is missing.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../config.ts';
import { DEMO_DB_PATH, taxYearStartFor } from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { generateFleet, defaultEndDay } from '../simulator/generate.ts';
import type { FleetOptions } from '../simulator/model.ts';
import { DEFAULT_CREDENTIALS, startSimulator } from '../simulator/server.ts';
import { startServer } from '../server/start.ts';
import { writeDemoPrices } from '../prices/demo.ts';
import { loadPricesFile } from '../prices/store.ts';
import { writeDemoServicePlan } from '../service/demo.ts';
import { loadServicePlanFile } from '../service/store.ts';
import { queryJs } from '../store/queries.ts';
import { prepareModelConnection } from '../store/models.ts';
import { readServiceRows, serviceDueText } from '../alerts/service.ts';
import { openDatabase } from '../store/db.ts';
import { formatSummary } from '../sync/report.ts';
import { localDate } from '../time.ts';
import { syncAccount, wireAccount } from '../wiring.ts';
import type { Command } from './command.ts';

export const DEMO_DB = DEMO_DB_PATH;
const DEMO_ACCOUNT = 'demo';
/** The simulator's limit window in the demo: the documented limits, 60× faster. */
const DEMO_WINDOW_MS = 1000;

function demoOptions(path: string, fresh: boolean): FleetOptions {
  if (!fresh && existsSync(path)) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as FleetOptions;
    } catch (cause) {
      throw new FleetsyncError(
        'E_CONFIG',
        `cannot read ${path}; delete it (and ${DEMO_DB}) or pass --fresh`,
        { cause },
      );
    }
  }
  const timezone = 'Australia/Sydney';
  const opts: FleetOptions = {
    seed: 42,
    vehicles: 20,
    days: 120,
    timezone,
    endDay: defaultEndDay(Date.now(), timezone),
  };
  writeFileSync(`${path}.tmp`, JSON.stringify(opts, null, 2));
  renameSync(`${path}.tmp`, path);
  return opts;
}

export const demoCommand: Command = {
  summary: 'Simulator → sync → dashboard, with no configuration (npm start).',
  usage: 'fleetsync demo [--fresh]   (FLEETSYNC_PORT sets the dashboard port)',
  options: { fresh: { type: 'boolean' } },
  async run({ values }, ctx) {
    const config = loadConfig(ctx.env);
    const fresh = values.fresh === true;
    const log = createLogger({
      now: ctx.now,
      level: config.logLevel === 'info' ? 'warn' : config.logLevel,
      format: config.logFormat,
      write: (l) => ctx.stderr(l + '\n'),
    });
    const dbPath = DEMO_DB;
    if (fresh && existsSync(dbPath)) {
      for (const f of [dbPath, `${dbPath}.wal`]) if (existsSync(f)) renameSync(f, `${f}.old`);
      // the old file stays on disk (one per --fresh, replaced by the next): say where
      ctx.stdout(`fresh start: the previous database is kept as ${dbPath}.old (delete it when not needed)\n`);
    }
    const db = await openDatabase(dbPath);
    const optsPath = join(dirname(dbPath), 'demo.json');
    const fleetOptions = demoOptions(optsPath, fresh);
    const t0 = Date.now();
    const fleet = generateFleet(fleetOptions);
    const sim = await startSimulator({ fleet, port: 0, windowMs: DEMO_WINDOW_MS, log });
    ctx.stdout(
      `simulator: ${sim.baseUrl} — ${fleet.vehicles.length} vehicles, ${fleetOptions.days} days to ${fleetOptions.endDay} (${fleet.timezone}), generated in ${Date.now() - t0} ms\n`,
    );
    const { client, deps } = wireAccount(
      db,
      {
        account: DEMO_ACCOUNT,
        baseUrl: sim.baseUrl,
        username: DEFAULT_CREDENTIALS.username,
        password: DEFAULT_CREDENTIALS.mainPassword,
        timezone: fleet.timezone,
        changelogUrl: null,
      },
      { ...config, rateWindowMs: DEMO_WINDOW_MS },
      log,
      { now: ctx.now },
    );
    let server: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      const con = await db.connect();
      const covered = Number((await queryJs(con, 'sync/ledger_count', [DEMO_ACCOUNT]))[0]?.n ?? 0);
      con.closeSync();
      const firstDay = localDate(fleet.startMs, fleet.timezone);
      ctx.stdout(
        covered
          ? `sync: reusing ${dbPath}, filling what is missing…\n`
          : `sync: ${firstDay} .. ${fleetOptions.endDay} into ${dbPath}…\n`,
      );
      const summary = await syncAccount(
        { ...deps, signal: ctx.stopSignal },
        covered ? { trigger: 'demo' } : { trigger: 'demo', fromDay: firstDay, toDay: fleetOptions.endDay },
      );
      ctx.stdout(formatSummary(summary) + '\n\n');
      if (ctx.stopSignal.aborted) return 1;
      // Prices: FLEETSYNC_PRICES, else a demo file beside the database (docs/reports.md, "The prices file").
      const pricesPath =
        config.pricesFile?.trim() || writeDemoPrices(fleet, join(dirname(dbPath), 'demo-prices.json'));
      const pcon = await db.connect();
      try {
        await loadPricesFile(pcon, DEMO_ACCOUNT, { pricesFile: pricesPath }, ctx.now());
      } finally {
        pcon.closeSync();
      }
      ctx.stdout(`prices: ${pricesPath}\n`);
      // The service plan: FLEETSYNC_SERVICE_PLAN, else the simulator's service history (docs/service.md).
      const planPath =
        config.servicePlanFile?.trim() ||
        writeDemoServicePlan(fleet, join(dirname(dbPath), 'demo-service-plan.json'));
      const scon = await db.connect();
      let due = '';
      try {
        await loadServicePlanFile(
          scon,
          DEMO_ACCOUNT,
          { servicePlanFile: planPath },
          fleet.timezone,
          ctx.now(),
        );
        // the vehicles due for service, said once here as what they are (the alerts log them at info)
        await prepareModelConnection(scon, ['alerts/service_due']);
        const rows = await readServiceRows(
          scon,
          [{ account: DEMO_ACCOUNT, zone: fleet.timezone }],
          ctx.now(),
          log,
        );
        due = serviceDueText(rows);
      } finally {
        scon.closeSync();
      }
      ctx.stdout(`service plan: ${planPath}${due ? ` — ${due}: see the service page` : ''}\n`);
      server = await startServer({
        now: ctx.now,
        db,
        config: {
          ...config,
          account: DEMO_ACCOUNT,
          timezone: fleet.timezone,
          baseUrl: sim.baseUrl,
          dbPath,
          // the demo fleet drives in Sydney: the logbook's tax year is the ATO's unless set
          taxYearStart: ctx.env.FLEETSYNC_TAX_YEAR_START ? config.taxYearStart : taxYearStartFor('au'),
        },
        log,
        runSync: (trigger) => syncAccount(deps, { trigger }),
      });
      ctx.stdout(`dashboard: ${server.url.replace(/\/$/, '')}/  (Ctrl-C stops the demo)\n`);
      await new Promise<void>((resolve) =>
        ctx.stopSignal.addEventListener('abort', () => resolve(), { once: true }),
      );
      return 0;
    } finally {
      await server?.close();
      await client.close();
      await sim.close();
      db.close();
    }
  },
};
