/**
 * startServer: the app on one DuckDB instance, listening on host:port, with an optional cron
 * schedule (node-cron, in the account's zone, noOverlap, quiet) that shares the sync gate with
 * POST /api/sync. Used by `fleetsync serve` and `fleetsync demo`.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import cron from 'node-cron';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { JobOutcome } from '../lake/outcomes.ts';
import type { Database } from '../store/db.ts';
import { createAlerter, type Alerter } from '../alerts/alerter.ts';
import { ALERT_CHECK_MS, STOP_WORK_GIVE_UP_MS, SUBSCRIPTION_CHECK_MS } from '../defaults.ts';
import { noteCheckpointed } from '../store/checkpoint.ts';
import { createApp } from './app.ts';
import type { HeavyQueue } from './heavy-queue.ts';
import type { DrainLimits } from './drain.ts';
import { createSyncGate, type RunSyncFn } from './sync-gate.ts';
import { stopInOrder } from './stop.ts';
import { createServeTempDir } from './temp.ts';
import { startOfNextLocalDay, type Clock } from '../time.ts';
import { createWarmUp, type WarmUp } from './warm-up.ts';
import type { Subscription } from '../reports/subscription-file.ts';

export interface StartServerOptions {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  runSync?: RunSyncFn;
  /** Cron expression (default config.schedule); runs in `zone` (default config.timezone). */
  schedule?: string | null;
  zone?: string;
  /** Overrides of config.host / config.port (port 0 picks a free one). */
  host?: string;
  port?: number;
  /** The accounts shown (lake mode); see AppOptions.accounts. */
  accounts?: () => string[] | Promise<string[]>;
  /** Lake mode: each account's last worker job and publish time (see AppOptions.jobs). */
  jobs?: () => JobOutcome[];
  /** Lake mode: nothing is recorded (see AppOptions.lake). */
  lake?: boolean;
  /** How often stale data is checked and undelivered alerts retried (default ALERT_CHECK_MS). */
  alertCheckMs?: number;
  /** The queue of heavy downloads (default: heavy-queue.ts DEFAULT_HEAVY_QUEUE). */
  downloads?: HeavyQueue;
  /** The subscriptions sent (default: config.subscriptionsFile read and checked; none in lake mode). */
  subscriptions?: readonly Subscription[];
  /** How often subscriptions are checked (default SUBSCRIPTION_CHECK_MS); also once at start. */
  subscriptionCheckMs?: number;
  /**
   * Compute the overview's calls at its default period into the answer memo at start, after each
   * sync run and at the account's local midnight (warm-up.ts; `fleetsync serve`). Not in lake mode.
   */
  warmUp?: boolean;
  /** How long the close waits for the routes' database work (default DRAIN_INTERRUPT_MS, DRAIN_GIVE_UP_MS). */
  drainLimits?: Partial<DrainLimits>;
  /**
   * How long the close waits for the run, the warm-up, the month-end pack, the subscriptions and the
   * alert check to end on their stop signals before it names what still runs and goes on (default
   * STOP_WORK_GIVE_UP_MS; stop.ts).
   */
  stopWorkGiveUpMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  nextRun(): Date | null;
  /** Resolves when the subscriptions' check running now (the one at start, say) is done. */
  subscriptionsChecked(): Promise<unknown>;
  /** Resolves when the overview's warm-up (if any) has no pass running or due. */
  warmed(): Promise<void>;
  close(): Promise<void>;
}

export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  // Subscriptions: a bad file stops the start (E_CONFIG naming every problem) before anything runs.
  const subs = opts.accounts ? [] : (opts.subscriptions ?? (await subscriptionsOf(opts.config)));
  const subscriptions = subs.length ? startSubscriptions(opts, subs) : null;
  // A server that syncs also alerts: after every run (scheduled or POST /api/sync) and on a timer.
  const alerter: Alerter | null = opts.runSync
    ? createAlerter({
        db: opts.db,
        config: opts.config,
        log: opts.log,
        now: opts.now,
      })
    : null;
  const runSync = opts.runSync;
  let checking: Promise<unknown> = Promise.resolve();
  let alertsClosed = false; // a run left behind by a stop checks nothing when it ends
  const warmUp = opts.warmUp && !opts.accounts ? createWarmUp((level, m, f) => opts.log[level](m, f)) : null;
  // The check runs after the run, outside the gate: a slow mail server never delays the answer.
  // So does the warm-up of the overview's answers for the data the run committed.
  const gate =
    runSync && alerter
      ? createSyncGate(async (trigger) => {
          try {
            return await runSync(trigger);
          } finally {
            // a checkpoint failure kept from before, cleared once DuckDB's own checkpoint succeeded
            noteCheckpointed(opts.db.path, opts.log);
            if (!alertsClosed) checking = alerter.check();
            warmUp?.trigger('sync');
          }
        })
      : null;
  const alertTimer = alerter
    ? setInterval(() => {
        if (!gate?.running) checking = alerter.check();
      }, opts.alertCheckMs ?? ALERT_CHECK_MS)
    : null;
  alertTimer?.unref();
  if (alerter) checking = alerter.check(); // stale data and undelivered alerts left by the last process
  const schedule = opts.schedule === undefined ? opts.config.schedule : opts.schedule;
  let task: ReturnType<typeof cron.schedule> | null = null;
  if (schedule && gate) {
    task = cron.schedule(
      schedule,
      async () => {
        const run = gate.tryRun('schedule');
        if (!run) {
          opts.log.info('scheduled sync skipped: a sync is running');
          return;
        }
        try {
          const s = await run;
          opts.log.info('scheduled sync done', { run_id: s.run_id, outcome: s.outcome });
        } catch (e) {
          opts.log.error('scheduled sync failed', { error: describeError(e) });
        }
      },
      {
        timezone: opts.zone ?? opts.config.timezone,
        noOverlap: true,
        name: 'fleetsync-sync',
        logger: {
          info: () => {},
          // node-cron's noOverlap skip is a warning: say so where a scheduler's operator looks.
          warn: (m: string) =>
            /overlap/i.test(m)
              ? opts.log.info('scheduled sync skipped: the previous scheduled run is still going')
              : opts.log.debug('cron', { message: m }),
          error: (m: string | Error) => opts.log.warn('cron', { message: String(m) }),
          debug: () => {},
        },
      } as Parameters<typeof cron.schedule>[2],
    );
  }
  // The month-end pack (FLEETSYNC_REPORT_SCHEDULE): checked in the account's zone, beside the sync.
  const packs = opts.config.reportSchedule && !opts.accounts ? opts.config.reportSchedule : null;
  let packing: Promise<unknown> = Promise.resolve(); // the pack's check going (close waits for it)
  const packStop = new AbortController(); // the pack's stop signal (close)
  const packTask = packs
    ? cron.schedule(
        packs,
        async () => {
          const tick = (async () => {
            const { monthEndTick } = await import('../reports/pack.ts');
            return monthEndTick({
              db: opts.db,
              config: opts.config,
              log: opts.log,
              now: opts.now,
              signal: packStop.signal,
            });
          })();
          packing = tick;
          try {
            await tick;
          } catch (e) {
            if (packStop.signal.aborted)
              opts.log.info('month-end pack stopped: the server is stopping (the next check sends it)');
            else opts.log.error('month-end pack failed', { error: describeError(e) });
          }
        },
        {
          timezone: opts.zone ?? opts.config.timezone,
          noOverlap: true,
          name: 'fleetsync-report',
          logger: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
        } as Parameters<typeof cron.schedule>[2],
      )
    : null;
  async function stopAlerts() {
    await subscriptions?.stop();
    await stopChecks();
    closeAlerts();
  }
  async function stopChecks() {
    if (alertTimer) clearInterval(alertTimer);
    await checking;
  }
  function closeAlerts() {
    alertsClosed = true;
    alerter?.close();
  }
  const firstDue = task ? (task.getNextRun() ?? null) : null;
  const scheduler = {
    nextRun: () => (task ? (task.getNextRun() ?? null) : null),
    firstDue: () => firstDue,
  };
  // Download copies: swept at start (a killed server's), removed at stop.
  const temp = createServeTempDir();
  const app = createApp({
    tempDir: temp.path,
    db: opts.db,
    config: opts.config,
    log: opts.log,
    now: opts.now,
    ...(gate ? { syncGate: gate } : {}),
    scheduler,
    ...(opts.accounts ? { accounts: opts.accounts } : {}),
    ...(opts.jobs ? { jobs: opts.jobs } : {}),
    ...(opts.lake ? { lake: true } : {}),
    ...(opts.downloads ? { downloads: opts.downloads } : {}),
    ...(warmUp ? { warmUp } : {}),
    subscriptions: subs,
  });
  const host = opts.host ?? opts.config.host;
  const wanted = opts.port ?? opts.config.port;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(wanted, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  }).catch(async (e: unknown) => {
    if (task) await task.destroy();
    if (packTask) await packTask.destroy();
    await stopAlerts();
    temp.remove();
    throw listenError(e, host, wanted);
  });
  const port = (server.address() as AddressInfo).port;
  const midnight = warmUp ? warmAtMidnight(warmUp, opts) : null;
  warmUp?.trigger('start');
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    server,
    nextRun: scheduler.nextRun,
    subscriptionsChecked: () => subscriptions?.idle() ?? Promise.resolve(),
    warmed: () => warmUp?.settled() ?? Promise.resolve(),
    // Resolves only when nothing the server started touches the database: the schedules and the
    // sync gate first (no run starts while the rest stops), the run going, the warm-up, the pack,
    // the alerts, the requests, then the routes' own work (a status recomputed behind its answer, a
    // call whose client left). Never hangs: what still runs after the wait is named and left to the
    // drain, which interrupts its statements.
    close: async () => {
      if (task) await task.destroy();
      if (packTask) await packTask.destroy();
      packStop.abort(); // the pack stops before its next attachment, or before it sends
      const waitMs = opts.stopWorkGiveUpMs ?? STOP_WORK_GIVE_UP_MS;
      // a POST /api/sync from now on starts nothing (503); the run going ends (its own stop
      // signal) before the warm-up and the alerts it hands its data to stop
      const left = await stopInOrder(
        [
          ['the sync run', () => gate?.close()],
          [
            "the overview's warm-up",
            () => {
              midnight?.stop();
              return warmUp?.stop();
            },
          ],
          ['the month-end pack', () => packing],
          ['the subscriptions check', () => subscriptions?.stop()],
          ['the alert check', stopChecks],
        ],
        waitMs,
      );
      if (left.length)
        opts.log.error('stopping: work still running after the wait was left behind', {
          running: left.join(', '),
          waited_ms: waitMs,
        });
      closeAlerts();
      await new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      });
      const drained = await app.drain(opts.drainLimits);
      if (drained.interrupted > 0)
        opts.log.warn('stopping: database connections still in use after the wait were interrupted', {
          connections: drained.interrupted,
        });
      // the work left behind may hold its connections (a pack waiting for its mail server): expected
      if (drained.leftOpen > 0 && left.length)
        opts.log.warn('stopping: database connections of the work left behind were left open', {
          connections: drained.leftOpen,
        });
      else if (drained.leftOpen > 0)
        opts.log.error('stopping: database connections the server opened were never closed', {
          connections: drained.leftOpen,
        });
      temp.remove();
    },
  };
}

/**
 * The overview's default period moves at the account's local midnight: a warm-up then (a minute
 * after, on the server's clock), again every day.
 */
function warmAtMidnight(warmUp: WarmUp, opts: StartServerOptions) {
  const zone = opts.zone ?? opts.config.timezone;
  let timer: NodeJS.Timeout | null = null;
  const arm = () => {
    const wait = startOfNextLocalDay(opts.now(), zone) + 60_000 - opts.now();
    timer = setTimeout(
      () => {
        warmUp.trigger('midnight');
        arm();
      },
      Math.max(60_000, wait),
    );
    timer.unref();
  };
  arm();
  return { stop: () => timer && clearTimeout(timer) };
}

async function subscriptionsOf(config: Readonly<Config>): Promise<readonly Subscription[]> {
  if (!config.subscriptionsFile) return [];
  const { readSubscriptions } = await import('../reports/subscription-file.ts');
  return readSubscriptions(config.subscriptionsFile);
}

/**
 * The subscriptions' check: once now (a send missed while the server was down goes out) and on a
 * timer; a check still running when the next is due is not doubled. `stop` waits for it.
 */
function startSubscriptions(opts: StartServerOptions, subs: readonly Subscription[]) {
  let running: Promise<unknown> | null = null;
  const check = () => {
    if (running) return;
    running = import('../reports/subscriptions.ts')
      .then(({ subscriptionTick }) =>
        subscriptionTick({ db: opts.db, config: opts.config, log: opts.log, now: opts.now }, subs),
      )
      .catch((e: unknown) => opts.log.error('subscriptions check failed', { error: describeError(e) }))
      .finally(() => (running = null));
  };
  check();
  const timer = setInterval(check, opts.subscriptionCheckMs ?? SUBSCRIPTION_CHECK_MS);
  timer.unref();
  return {
    /** Resolves when the check running now (if any) is done. */
    idle: () => running ?? Promise.resolve(),
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/** A port that cannot be had, said in words that name the setting (not a bare `listen EADDRINUSE`). */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new FleetsyncError(
      'E_CONFIG',
      `port ${port} is already in use on ${host} (FLEETSYNC_PORT): stop the program listening on ${where} or set FLEETSYNC_PORT to a free port`,
      { cause: e },
    );
  if (code === 'EACCES')
    return new FleetsyncError(
      'E_CONFIG',
      `not allowed to listen on ${where} (FLEETSYNC_PORT): ports below 1024 need privileges; choose a port from 1024 up`,
      { cause: e },
    );
  if (code === 'EADDRNOTAVAIL')
    return new FleetsyncError('E_CONFIG', `no interface with the address ${host} here (FLEETSYNC_HOST)`, {
      cause: e,
    });
  return e;
}
