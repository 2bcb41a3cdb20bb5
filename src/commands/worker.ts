/**
 * `fleetsync worker [--enqueue]`: takes "sync account X" jobs from the Postgres queue named by
 * FLEETSYNC_QUEUE_URL (see src/worker/worker.ts). `--enqueue` queues one job per account and exits.
 */
import { loadAccounts } from '../accounts.ts';
import { loadConfig, secretsOf } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import type { Command } from './command.ts';
import { parseSyncArgs } from './sync.ts';

export const workerCommand: Command = {
  summary: 'Take "sync account X" jobs from the Postgres queue (FLEETSYNC_QUEUE_URL) and publish the lake.',
  usage:
    'fleetsync worker [--enqueue [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--full-publish]]   (FLEETSYNC_QUEUE_URL, FLEETSYNC_CONFIG, FLEETSYNC_DATA_DIR, FLEETSYNC_LAKE_DIR, FLEETSYNC_SCHEDULE, FLEETSYNC_JOB_EXPIRE_SECONDS)',
  options: {
    enqueue: { type: 'boolean' },
    from: { type: 'string' },
    to: { type: 'string' },
    'full-publish': { type: 'boolean' },
  },
  async run({ values }, ctx) {
    const range = parseSyncArgs({ from: values.from, to: values.to });
    if ((range.fromDay || range.toDay) && values.enqueue !== true)
      throw new FleetsyncError(
        'E_USAGE',
        '--from/--to go with --enqueue (they choose the days of the queued jobs)',
      );
    const fullPublish = values['full-publish'] === true;
    if (fullPublish && values.enqueue !== true)
      throw new FleetsyncError(
        'E_USAGE',
        '--full-publish goes with --enqueue (the queued jobs rewrite every partition of their account in the lake)',
      );
    const config = loadConfig(ctx.env, { needApi: true });
    const { workerSettings, runWorker } = await import('../worker/worker.ts');
    const settings = workerSettings(config);
    const accounts = loadAccounts(ctx.env, config);
    // A bad subscriptions file stops the worker at start (exit 2), naming every problem.
    const subscriptions =
      config.subscriptionsFile && values.enqueue !== true
        ? (await import('../reports/subscription-file.ts')).readSubscriptions(config.subscriptionsFile)
        : [];
    const log = createLogger({
      now: ctx.now,
      level: config.logLevel,
      format: config.logFormat,
      secrets: [...secretsOf(config), ...accounts.map((a) => a.password)],
      write: (line) => ctx.stderr(line + '\n'),
    });
    // FLEETSYNC_SERVICE_PLAN, as serve loads it: a bad file stops the worker at start (exit 2).
    if (values.enqueue !== true) {
      const { loadServicePlanAtStart } = await import('../worker/jobs.ts');
      await loadServicePlanAtStart({ config, accounts, settings, log, now: ctx.now });
    }
    const message = await runWorker(
      { config, accounts, settings, log, signal: ctx.stopSignal, now: ctx.now, subscriptions },
      { enqueue: values.enqueue === true, fromDay: range.fromDay, toDay: range.toDay, fullPublish },
    );
    ctx.stdout(message + '\n');
    return 0;
  },
};
