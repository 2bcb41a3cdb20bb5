/**
 * `fleetsync sync [--from D] [--to D] [--streams a,b] [--plan]`: one run, then exit.
 * Progress on stderr (a bar on a terminal, one line per stream otherwise; per window at debug);
 * the summary on stdout.
 * Exit 0 only when every window succeeded; 3 when some failed (everything finished is kept); 130
 * when asked to stop (Ctrl-C, SIGTERM: the run is `partial`, "interrupted", what it committed kept).
 * `--rezone` moves the account to the configured zone (src/sync/rezone.ts); exit 3 when not applied.
 */
import { existsSync } from 'node:fs';
import { createAlerter } from '../alerts/alerter.ts';
import { alertsConfigured } from '../alerts/channels.ts';
import { loadConfig, secretsOf, untouchedExample } from '../config.ts';
import { FleetsyncError, describeError, isFleetsyncError } from '../errors.ts';
import { outcomesFor, type RunOutcomes } from '../outcome/outcomes.ts';
import { createLogger } from '../log.ts';
import {
  SYNC_DB_MEMORY,
  SYNC_DB_THREADS,
  inTransaction,
  openDatabase,
  lowerDatabaseMemory,
  raiseLoweredMemory,
  setDatabaseThreads,
  type Database,
} from '../store/db.ts';
import { accountZones, rebuildFacts as rebuildAccountFacts } from '../store/facts.ts';
import { planSync, wasInterrupted } from '../sync/run.ts';
import { formatRezone, rezoneAccount } from '../sync/rezone.ts';
import { loadAccounts, selectAccounts } from '../accounts.ts';
import { formatPlan, formatSummary, progressPrinter } from '../sync/report.ts';
import { STREAMS, type StreamName } from '../sync/streams/index.ts';
import { EXIT_NOT_CHECKPOINTED, recordCheckpoint } from '../store/checkpoint.ts';
import { isCalendarDay } from '../time.ts';
import { accountStreams, syncAccount, wireAccount } from '../wiring.ts';
import type { Command, RunContext } from './command.ts';

export function parseSyncArgs(values: Record<string, string | boolean | undefined>) {
  const problems: string[] = [];
  const day = (name: 'from' | 'to') => {
    const v = values[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !isCalendarDay(v))
      problems.push(`--${name} must be a calendar day YYYY-MM-DD (got ${JSON.stringify(v)})`);
    return typeof v === 'string' ? v : undefined;
  };
  const fromDay = day('from');
  const toDay = day('to');
  if (fromDay && toDay && isCalendarDay(fromDay) && isCalendarDay(toDay) && toDay < fromDay)
    problems.push(`--to ${toDay} is before --from ${fromDay}`);
  let streams: StreamName[] | undefined;
  if (typeof values.streams === 'string') {
    const list = values.streams
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = list.filter((s) => !(STREAMS as readonly string[]).includes(s));
    if (bad.length || list.length === 0)
      problems.push(
        `--streams: unknown stream ${bad.map((b) => JSON.stringify(b)).join(', ') || '(empty)'}; streams are ${STREAMS.join(', ')}`,
      );
    streams = list as StreamName[];
  }
  const rezone = values.rezone === true;
  if (values['rebuild-facts'] === true && (rezone || fromDay || toDay || streams || values.plan === true))
    problems.push(
      '--rebuild-facts computes the stored facts again and pulls nothing: it takes no --from, --to, --streams, --plan or --rezone',
    );
  if (rezone && (fromDay || toDay || streams || values.plan === true))
    problems.push(
      '--rezone pulls every window of the account again in the new zone: it takes no --from, --to, --streams or --plan',
    );
  if (problems.length) throw new FleetsyncError('E_USAGE', problems.join('\n'));
  return { fromDay, toDay, streams, planOnly: values.plan === true, json: values.json === true, rezone };
}

/** Exit code of a sync asked to stop (Ctrl-C, SIGTERM) mid-run: 128 + SIGINT, as a shell says. */
export const EXIT_INTERRUPTED = 130;

export const syncCommand: Command = {
  summary: 'One sync run of the Fleet API into the DuckDB file, then exit.',
  usage:
    'fleetsync sync [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--streams a,b] [--plan] [--json] [--account NAME] | sync --rezone [--json] [--account NAME] | sync --rebuild-facts [--json] [--account NAME]   (several accounts: FLEETSYNC_CONFIG)',
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    streams: { type: 'string' },
    plan: { type: 'boolean' },
    json: { type: 'boolean' },
    account: { type: 'string' },
    rezone: { type: 'boolean' },
    'rebuild-facts': { type: 'boolean' },
  },
  async run({ values }, ctx) {
    const args = parseSyncArgs(values);
    if (values['rebuild-facts'] === true) return rebuildFacts(values, ctx);
    const config = loadConfig(ctx.env, { needApi: !args.planOnly });
    // A plan needs no credentials, but an untouched copy of .env.example is a setup not finished.
    const untouched = args.planOnly ? untouchedExample(ctx.env) : [];
    if (untouched.length)
      throw new FleetsyncError(
        'E_CONFIG',
        `invalid configuration: these values are still .env.example's: ${untouched.join(', ')}. ` +
          "Set your account's FLEET_COUNTRY (or FLEET_BASE_URL), FLEET_USERNAME, FLEET_PASSWORD and FLEET_TIMEZONE " +
          '(docs/configuration.md), then plan again',
      );
    const accounts = selectAccounts(
      args.planOnly && !config.accountsFile
        ? [
            {
              account: config.account,
              baseUrl: config.baseUrl ?? '',
              username: '',
              password: '',
              timezone: config.timezone,
              changelogUrl: config.changelogUrl,
              ...(config.limits ? { limits: config.limits } : {}),
              ...(config.streams ? { streams: config.streams } : {}),
            },
          ]
        : loadAccounts(ctx.env, config),
      typeof values.account === 'string' ? values.account : undefined,
    );
    const tty = process.stderr.isTTY === true && !ctx.env.CI;
    let outcomes: RunOutcomes | null = null;
    const log = createLogger({
      now: ctx.now,
      level: tty && config.logLevel === 'info' ? 'warn' : config.logLevel,
      format: config.logFormat,
      secrets: [...secretsOf(config), ...accounts.map((a) => a.password)],
      write: (line) => {
        ctx.stderr(line + '\n');
        outcomes?.noteLog(line); // the last thing a run that dies said
      },
    });
    const alert = async (db: Database | null) => {
      // Alerts (FLEETSYNC_ALERT_WEBHOOK, FLEETSYNC_SMTP_URL): once per incident; never fail the run.
      // Without a channel the summary says it all.
      if (!alertsConfigured(config)) return;
      const alerter = createAlerter({ db, outcomes: outcomes!, config, log, now: ctx.now });
      await alerter.check();
      alerter.close();
    };
    // A run is `running` in the state file beside the database before the database is opened:
    // an abort inside DuckDB while it opens the file is found by the next process.
    outcomes = outcomesFor(config.dbPath, log);
    const syncing = !args.planOnly && !args.rezone;
    const nowMs = ctx.now();
    const started = syncing ? accounts.map((a) => outcomes!.begin(a.account, 'cli', nowMs)) : [];
    let db: Database;
    try {
      // A plan creates and changes nothing: it reads the file read-only, or plans as for an empty
      // database (in memory) when there is none yet.
      db = args.planOnly
        ? existsSync(config.dbPath)
          ? await openDatabase(config.dbPath, { readOnly: true })
          : await openDatabase(':memory:')
        : await openDatabase(config.dbPath);
    } catch (e) {
      if (isFleetsyncError(e, 'E_DB_LOCKED')) started.forEach((h) => h.abandon());
      else {
        for (const h of started)
          h.end({
            state: 'failed',
            error: describeError(e),
            recorded: false,
            nowMs: ctx.now(),
          });
        if (started.length) await alert(null);
      }
      throw e;
    }
    const progress = tty ? progressPrinter((t) => ctx.stderr(t)) : undefined;
    const perAccount = accounts.map((a) =>
      wireAccount(db, { ...a, baseUrl: a.baseUrl || 'http://127.0.0.1:0/rest' }, config, log, {
        baseUrl: a.baseUrl,
        now: ctx.now,
        signal: ctx.stopSignal,
        ...(progress && accounts.length === 1 ? { onProgress: progress } : {}),
      }),
    );
    try {
      // --streams for this run, else the account's streams (FLEETSYNC_STREAMS, the accounts file).
      const reqOf = (i: number) => ({
        fromDay: args.fromDay,
        toDay: args.toDay,
        ...(args.streams ? { streams: args.streams } : accountStreams(accounts[i]!)),
        trigger: 'cli' as const,
      });
      if (args.planOnly) {
        const plans = await Promise.all(perAccount.map((p, i) => planSync(p.deps, reqOf(i))));
        ctx.stdout(
          (args.json
            ? JSON.stringify(plans.length === 1 ? plans[0] : plans, null, 2)
            : plans.map(formatPlan).join('\n\n')) + '\n',
        );
        return 0;
      }
      if (args.rezone) {
        const done = await Promise.all(perAccount.map((p) => rezoneAccount(p.deps)));
        ctx.stdout(
          (args.json
            ? JSON.stringify(done.length === 1 ? done[0] : done, null, 2)
            : done.map(formatRezone).join('\n\n')) + '\n',
        );
        return done.some((d) => d.status === 'not_applied') ? 3 : 0;
      }
      await setDatabaseThreads(db, SYNC_DB_THREADS);
      // The small heap keeps DuckDB's pool small too (SYNC_DB_MEMORY) for one account's run, with
      // room to grow back if a commit does not fit; several accounts side by side, or the `fast`
      // heap, keep the default pool.
      if (config.syncHeap === 'small' && accounts.length === 1) await lowerDatabaseMemory(db, SYNC_DB_MEMORY);
      // Accounts have their own rate limits and rows: they sync side by side.
      // The alert check after the checkpoint (below), so that a failed one alerts too; after a
      // failed run, at once.
      const summaries = await Promise.all(perAccount.map((p, i) => syncAccount(p.deps, reqOf(i)))).catch(
        async (e: unknown) => {
          await alert(db);
          throw e;
        },
      );
      if (tty) ctx.stderr('\n');
      ctx.stdout(
        (args.json
          ? JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2)
          : summaries.map(formatSummary).join('\n\n')) + '\n',
      );
      // Asked to stop (Ctrl-C, SIGTERM): 130, as a shell says of Ctrl-C; what was committed is kept.
      const worst = summaries.some((s) => s.outcome === 'failed')
        ? 1
        : summaries.some(wasInterrupted)
          ? EXIT_INTERRUPTED
          : summaries.some((s) => s.outcome === 'partial')
            ? 3
            : 0;
      // Every commit is in the write-ahead log; the file is written at a checkpoint, whose failure
      // at close DuckDB keeps silent (src/store/checkpoint.ts): checked here, said, exit 5.
      // Kept in the state file until a checkpoint succeeds: status, serve and /healthz say it too.
      // The checkpoint writes what the run committed: in the pool the sync had before it lowered it.
      await raiseLoweredMemory(db, log);
      const unwritten = (await recordCheckpoint(db, ctx.now(), log))?.problem;
      if (unwritten) {
        log.warn('checkpoint failed', { problem: unwritten });
        ctx.stderr(`warning: ${unwritten}\n`);
      }
      // (a failed checkpoint leaves the database unreadable: the alerter judges the state file alone)
      await alert(unwritten ? null : db);
      return worst || (unwritten ? EXIT_NOT_CHECKPOINTED : 0);
    } finally {
      await Promise.all(perAccount.map((p) => p.client.close()));
      db.close();
      // An account whose run never began (a bad request before it) has no outcome to keep. Read
      // only when runs were begun: reading creates the state file, which a plan must not.
      const doc = started.length ? outcomes.read() : null;
      accounts.forEach((a, i) => {
        const o = doc?.accounts[a.account];
        if (o?.state === 'running' && o.pid === process.pid && o.run_id === null) started[i]?.abandon();
      });
    }
  },
};

/**
 * `sync --rebuild-facts [--account NAME] [--json]`: computes an account's daily facts and day's
 * coverage again from its stored rows and ledger (src/store/facts.ts), in one transaction per
 * account, so the reports that read them never see half of it; nothing is pulled. The sync keeps
 * them at every commit and a re-zone rebuilds them; this is for anything else that changes what
 * they rest on outside a sync (rows edited by hand, a file restored from elsewhere).
 */
async function rebuildFacts(
  values: Record<string, string | boolean | undefined>,
  ctx: RunContext,
): Promise<void> {
  const config = loadConfig(ctx.env);
  const db = await openDatabase(config.dbPath, { mustExist: true });
  const con = await db.connect();
  try {
    const all = await accountZones(con);
    const named = typeof values.account === 'string' ? values.account : undefined;
    const chosen = named === undefined ? all : all.filter((a) => a.account === named);
    if (named !== undefined && chosen.length === 0)
      throw new FleetsyncError(
        'E_USAGE',
        `this database holds no synced account ${JSON.stringify(named)}; it holds: ${all.map((a) => a.account).join(', ') || 'none'}`,
      );
    const out: { account: string; zone: string; fact_rows: number; ms: number }[] = [];
    for (const a of chosen) {
      const t0 = Date.now();
      const rows = await inTransaction(con, () => rebuildAccountFacts(con, a.account, a.zone));
      out.push({ account: a.account, zone: a.zone, fact_rows: rows, ms: Date.now() - t0 });
    }
    if (values.json === true) ctx.stdout(JSON.stringify({ rebuilt: out }) + '\n');
    else if (out.length === 0) ctx.stdout('no synced account in this database: nothing to rebuild\n');
    else
      for (const r of out)
        ctx.stdout(
          `account ${r.account}: daily facts and coverage rebuilt in ${r.zone} (${r.fact_rows} fact rows, ${r.ms} ms)\n`,
        );
  } finally {
    con.closeSync();
    db.close();
  }
}
