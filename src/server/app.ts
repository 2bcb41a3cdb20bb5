/**
 * The Express app factory (no listen on import): dashboard pages and their ES modules from
 * `dashboard/`, Chart.js from the installed package, the JSON/CSV report API, GET /api/status
 * and POST /api/sync. helmet sets a CSP without inline script, no framing and nosniff; beyond
 * loopback every /api route needs the bearer token.
 */
import express, { type ErrorRequestHandler, type Express } from 'express';
import helmet from 'helmet';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLoopbackHost, type Config } from '../config.ts';
import { describeError, isFleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { JobOutcome } from '../lake/outcomes.ts';
import type { Database } from '../store/db.ts';
import { serverDatabase, type ServerDatabase } from './drain.ts';
import type { RunSummary } from '../sync/types.ts';
import { requireBearer } from './auth.ts';
import { healthRoutes } from './health-routes.ts';
import { outcomesFor } from '../outcome/outcomes.ts';
import { createMetrics } from './metrics.ts';
import { accountRoutes } from './account-routes.ts';
import { hostGuard } from './hosts.ts';
import { createServeTempDir } from './temp.ts';
import type { HeavyQueue } from './heavy-queue.ts';
import { reportRoutes } from './report-routes.ts';
import type { WarmUp } from './warm-up.ts';
import { serviceRoutes } from './service-routes.ts';
import { statusRoutes } from './status-routes.ts';
import { subscriptionRoutes } from './subscription-routes.ts';
import type { Subscription } from '../reports/subscription-file.ts';
import { createSyncGate, type SyncGate, type Trigger } from './sync-gate.ts';
import type { Clock } from '../time.ts';

export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url));
/** chart.js hides dist/ from its exports map: resolve the package entry, then its folder. */
export const CHART_JS_FILE = join(
  dirname(createRequire(import.meta.url).resolve('chart.js')),
  'chart.umd.min.js',
);

export interface AppOptions {
  /** The subscriptions `serve` sends (GET /api/subscriptions lists them); none by default. */
  subscriptions?: readonly Subscription[];
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  runSync?: (trigger: Trigger) => Promise<RunSummary>;
  /** A gate shared with the scheduler; made from runSync when not given. */
  syncGate?: SyncGate;
  scheduler?: { nextRun(): Date | null };
  /** The accounts this server shows (lake mode); otherwise those in the database's accounts table. */
  accounts?: () => string[] | Promise<string[]>;
  /** Lake mode: each account's last worker job and publish time (health, status). */
  jobs?: () => JobOutcome[];
  /**
   * Lake mode: the database is views of the lake, which the workers publish from each account's
   * own file. What a route would record there is refused (docs/service.md).
   */
  lake?: boolean;
  /** Where downloads are written before they are sent (startServer's, removed at stop). */
  tempDir?: string;
  /** The queue of heavy downloads (default DEFAULT_HEAVY_QUEUE; heavy-queue.ts). */
  downloads?: HeavyQueue;
  /** The overview's calls computed ahead of the first visit (warm-up.ts; startServer's). */
  warmUp?: WarmUp;
}

/** The app, and its drain: resolves when none of its work touches the database any more (drain.ts). */
export type App = Express & { drain: ServerDatabase['drain'] };

export function createApp(options: AppOptions): App {
  // Every connection of the routes counted, so that the server's close can wait for the last one.
  const db = serverDatabase(options.db);
  const opts = { ...options, db };
  const now = opts.now;
  const gate = opts.syncGate ?? (opts.runSync ? createSyncGate(opts.runSync) : null);
  const tempDir = opts.tempDir ?? createServeTempDir().path;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          fontSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      frameguard: { action: 'deny' },
    }),
  );
  // DNS rebinding: only the names this server is known by, on every route (see hosts.ts).
  app.use(hostGuard(opts.config));
  // Health and metrics (token rules inside: open on loopback, /healthz open to loopback peers).
  const metrics = createMetrics({
    staleHours: opts.config.staleHours,
    log: opts.log,
    outcomes: outcomesFor(opts.db.path, opts.log),
    zone: opts.config.timezone,
  });
  const scheduler = opts.scheduler ?? null;
  const jobs = opts.jobs ? { jobs: opts.jobs } : {};
  app.use(
    healthRoutes({ db: opts.db, config: opts.config, log: opts.log, now, gate, scheduler, metrics, ...jobs }),
  );
  app.use('/api/reports', metrics.reportTimer);
  if (!isLoopbackHost(opts.config.host)) {
    if (!opts.config.token)
      throw new Error('a non-loopback host needs FLEETSYNC_TOKEN (config refuses this)');
    app.use('/api', requireBearer(opts.config.token));
  }
  // Cross-site request forgery: a state-changing call must carry a header that a plain cross-site
  // form or image cannot send (and that a cross-origin script may only send after a CORS preflight,
  // which this server never grants).
  app.use('/api', (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.get('x-fleetsync-request') === '1')
      return next();
    res.status(403).json({
      error: 'E_FORBIDDEN',
      message: 'state-changing API calls need the header X-Fleetsync-Request: 1',
    });
  });
  app.use('/api', accountRoutes(opts.db, opts.config, opts.accounts, gate));
  app.use(
    '/api',
    reportRoutes({
      db: opts.db,
      config: opts.config,
      log: opts.log,
      now,
      tempDir,
      ...(opts.downloads ? { downloads: opts.downloads } : {}),
      ...(opts.warmUp ? { warmUp: opts.warmUp } : {}),
    }),
  );
  app.use(
    '/api',
    statusRoutes({
      db: opts.db,
      config: opts.config,
      log: opts.log,
      now,
      gate,
      scheduler: opts.scheduler ?? null,
      ...jobs,
      ...(opts.warmUp ? { warmUp: opts.warmUp } : {}),
    }),
  );
  app.use(
    '/api',
    subscriptionRoutes({ db: opts.db, config: opts.config, subscriptions: opts.subscriptions ?? [] }),
  );
  app.use('/api', serviceRoutes({ db: opts.db, config: opts.config, now, lake: opts.lake === true }));
  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'E_NOT_FOUND', message: 'no such API route' });
  });
  app.get('/vendor/chart.umd.min.js', (_req, res) => {
    res.type('text/javascript').sendFile(CHART_JS_FILE);
  });
  app.use(express.static(DASHBOARD_DIR, { index: 'index.html', extensions: ['html'] }));

  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    if (isFleetsyncError(err, 'E_BAD_REQUEST')) {
      res.status(400).json({ error: err.code, message: err.message });
      return;
    }
    opts.log.error('request failed', { error: describeError(err) });
    if (res.headersSent) return;
    res.status(isFleetsyncError(err, 'E_DB_MEMORY') ? 503 : 500).json({
      error: isFleetsyncError(err) ? err.code : 'E_INTERNAL',
      message: isFleetsyncError(err) ? err.message : 'internal error (see the server log)',
    });
  };
  app.use(onError);
  return Object.assign(app, { drain: db.drain });
}
