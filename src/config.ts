/**
 * Configuration: one zod schema over the environment, parsed once at start-up into a frozen
 * object. Every problem is reported at once, each naming its variable. Secrets come only from
 * the environment and are never printed (see `describeConfig`).
 */
import { SYNC_HEAPS, type SyncHeap } from './heap.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { validate as validateCron } from 'node-cron';
import {
  DEFAULT_BREAKER_FAILURES,
  DEFAULT_BREAKER_MS,
  DEFAULT_CONCURRENCY,
  DEFAULT_DB_PATH,
  DEFAULT_HOST,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_PORT,
  DEFAULT_RATE_WINDOW_MS,
  DEFAULT_STALE_HOURS,
  DEFAULT_MAX_LATENESS_DAYS,
  DEFAULT_REPORT_DEADLINE_DAYS,
  DEFAULT_FUEL_DROP_L,
  taxYearStartFor,
  DEFAULT_TIMEZONE,
  DEFAULT_SCORE_WEIGHTS,
  DEFAULT_SCORE_MIN_KM,
  DEFAULT_FUEL_OUTLIER_PCT,
  type ScoreWeights,
} from './defaults.ts';
import { FleetsyncError } from './errors.ts';
import {
  ACCEPTED_REGION_CODES,
  baseUrlForCountry,
  isCountryCode,
  unknownCountryText,
} from './api/regions.ts';
import { parseLimits, parseStreams, type Limits, type Parsed } from './sync-options.ts';
import { isValidTimeZone } from './time.ts';
import { DEFAULT_SITES_SPEC, parseSiteSelection, type SiteSelection } from './sites.ts';
import { DEFAULT_WORKING_HOURS_SPEC, parseWorkingHours, type WorkingHours } from './working-hours.ts';

export interface Config {
  /** Account key stored in every table (FLEETSYNC_ACCOUNT, default the API username). */
  account: string;
  /** Where `account` came from; 'default' lets commands pick the database's only account. */
  accountSource: 'FLEETSYNC_ACCOUNT' | 'FLEET_USERNAME' | 'default';
  baseUrl: string | null;
  username: string | null;
  password: string | null;
  timezone: string;
  /** Where `timezone` came from (named when a run is refused for a zone that differs from the recorded one). */
  timezoneSource?: 'FLEET_TIMEZONE' | 'default';
  /** FLEETSYNC_WORKING_HOURS (default Mon-Fri 07:00-18:00), in the account's zone. */
  workingHours?: WorkingHours;
  /** FLEETSYNC_SITES: the non-toll geofences whose visits are synced (default every one). */
  sites?: SiteSelection;
  dbPath: string;
  schedule: string | null;
  port: number;
  host: string;
  token: string | null;
  /** Host names (or host:port) the server answers besides loopback and `host` (FLEETSYNC_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Length of the API's rate-limit window in ms (60 000 on the real service). */
  rateWindowMs: number;
  /**
   * FLEETSYNC_ALLOW_FAST_TIMING: lets a schedule more often than once a minute and a rate window
   * below 60 s run against an API that is not on loopback (a simulator on another host).
   */
  allowFastTiming: boolean;
  /** FLEETSYNC_LIMITS: granted (or lowered) requests per minute by bucket; none = the spec's. */
  limits?: Limits;
  /** FLEETSYNC_STREAMS: the streams serve, worker and sync pull (null = every stream). */
  streams: readonly string[] | null;
  /** Per-request headers/body timeout against the API, ms. */
  httpTimeoutMs: number;
  /** Requests a sync keeps in flight (raise it on a link with high latency). */
  concurrency: number;
  /** The API's release-notes records (records.json); null = derived from the base URL. */
  changelogUrl: string | null;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  // Alerts, health and metrics (src/alerts/, src/server/health-routes.ts).
  /** FLEETSYNC_ALERT_WEBHOOK: JSON POST with a `text` field (Slack/Teams incoming webhook). */
  alertWebhook: string | null;
  /** FLEETSYNC_SMTP_URL: smtp:// or smtps:// (user and password in the URL, never logged). */
  smtpUrl: string | null;
  /** FLEETSYNC_ALERT_EMAIL: the recipients (comma-separated in the variable). */
  alertEmail: string[];
  /** FLEETSYNC_ALERT_FROM: the sender (default fleetsync@<host name>). */
  alertFrom: string | null;
  /** FLEETSYNC_STALE_HOURS: data is stale when "complete through" has not moved for this long. */
  staleHours: number;
  /** FLEETSYNC_MAX_LATENESS_DAYS: how long a window waits for a late vehicle's data, ms. */
  maxLateMs: number;
  /** FLEETSYNC_FUEL_DROP_L: a parked fall of the tank level larger than this is a suspected drop. */
  fuelDropL: number;
  /** FLEETSYNC_TAX_YEAR_START ('MM-DD'): the logbook's tax year; default by FLEET_COUNTRY (defaults.ts). */
  taxYearStart: string;
  // Driver scorecards and fuel efficiency (issue 27): FLEETSYNC_SCORE_WEIGHTS, _SCORE_MIN_KM, _FUEL_OUTLIER_PCT.
  /** Points lost per event (per minute of speeding) per 100 km: driver_scores' formula. */
  scoreWeights: Readonly<ScoreWeights>;
  /** A driver-month with less trip distance (km) is listed but not ranked. */
  scoreMinKm: number;
  /** Percent above the vehicle's 3-month baseline that makes a month a fuel_efficiency outlier. */
  fuelOutlierPct: number;
  // Failing fast (issue 13): the circuit breaker and the log format.
  /** Failed API exchanges in a row that stop a run (FLEETSYNC_BREAKER_FAILURES). */
  breakerFailures: number;
  /** Time with nothing but failed API exchanges that stops a run, ms (FLEETSYNC_BREAKER_MS). */
  breakerMs: number;
  /** `text` (key=value) or `json` (one object per line, for log shippers). */
  logFormat: 'text' | 'json';
  /** FLEETSYNC_SYNC_HEAP: V8's heap in a process that syncs (sync, worker, serve) (heap.ts; applied at the entry). */
  syncHeap: SyncHeap;
  // The month-end pack by e-mail (issue 14, src/reports/pack.ts).
  /** FLEETSYNC_REPORT_SCHEDULE: cron, in the account's zone, when `serve` checks for a closed month. */
  reportSchedule: string | null;
  /** FLEETSYNC_REPORT_TO: who gets the pack (comma-separated in the variable); needs FLEETSYNC_SMTP_URL. */
  reportTo: string[];
  /** FLEETSYNC_REPORT_DEADLINE_DAYS: days after a month's end when an incomplete month is sent as partial. */
  reportDeadlineDays: number;
  /** FLEETSYNC_CONFIG: the accounts file (src/accounts.ts); null = the one account of FLEET_* above. */
  accountsFile: string | null;
  /** FLEETSYNC_SUBSCRIPTIONS: the subscriptions file (src/reports/subscription-file.ts); null = none. */
  subscriptionsFile: string | null;
  /** FLEETSYNC_PRICES: the prices file checked and stored at start (src/prices/store.ts); null = none. */
  pricesFile: string | null;
  /** FLEETSYNC_SERVICE_PLAN: the service plan file checked and stored at start (src/service/store.ts); null = none. */
  servicePlanFile: string | null;
  /** Worker mode (src/worker/): the FLEETSYNC_QUEUE_*, FLEETSYNC_JOB_* and directory settings. */
  worker: WorkerConfig;
}

export interface WorkerConfig {
  /** FLEETSYNC_QUEUE_URL: the Postgres URL of the job queue (a secret: its password); null = not set. */
  queueUrl: string | null;
  /** FLEETSYNC_DATA_DIR: where each account's file goes (default: the directory of FLEETSYNC_DB). */
  dataDir: string;
  /** FLEETSYNC_LAKE_DIR: the Parquet lake published after each job; null = none. */
  lakeDir: string | null;
  /** Seconds a job may run before it counts as lost and is retried elsewhere. */
  expireSeconds: number;
  retryLimit: number;
  retryDelaySeconds: number;
  /** How often pg-boss's maintenance looks for expired jobs. */
  maintenanceSeconds: number;
  pollSeconds: number;
  /** How often pg-boss looks at the schedule (a tick fires within this after its minute); at most 45. */
  cronSeconds: number;
  /** How long Postgres may be unreachable before the worker stops (exit 75, restartable). */
  outageSeconds: number;
}

export type Env = Record<string, string | undefined>;

/** `https://user:pw@host/…`: credentials in a URL end up wherever the URL is stored or shown. */
export const hasCredentials = (url: string) => /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url);

const nonEmpty = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : s.trim());
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopbackHost = (h: string) => LOOPBACK.has(h) || /^127\.\d+\.\d+\.\d+$/.test(h);
const hostList = (v: string) =>
  v
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
/** A Host header value: a DNS name or IPv4 address, or a bracketed IPv6 address; optional :port. */
export const isHostEntry = (h: string) =>
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(
    h,
  );

/** One or more e-mail addresses, separated by commas. */
const emailList = () =>
  z
    .string()
    .regex(/^\s*[^\s@,]+@[^\s@,]+(\s*,\s*[^\s@,]+@[^\s@,]+)*\s*$/, {
      error: 'must be one or more e-mail addresses, separated by commas',
    })
    .optional();

/** A setting read by a parser of sync-options.ts, each of whose errors names the variable first. */
const parsedBy = <T>(name: string, parse: (text: string, where: string) => Parsed<T>) =>
  z
    .string()
    .optional()
    .transform((t, ctx) => {
      if (t === undefined) return undefined;
      const r = parse(t, name);
      if (r.ok) return r.value;
      for (const e of r.errors)
        ctx.issues.push({ code: 'custom', message: e.slice(`${name}: `.length), input: t });
      return z.NEVER;
    });

/** `braking=5,acceleration=3,…` of the weights. */
const weightsText = (w: Readonly<ScoreWeights>) =>
  Object.entries(w)
    .map(([k, n]) => `${k}=${n}`)
    .join(',');

/** FLEETSYNC_SCORE_WEIGHTS: name=number pairs over the defaults, or the problem in words. */
export function parseScoreWeights(text: string): Readonly<ScoreWeights> | string {
  const out: ScoreWeights = { ...DEFAULT_SCORE_WEIGHTS };
  const names = Object.keys(out);
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)\s*=\s*([0-9]+(?:\.[0-9]+)?)$/.exec(part);
    if (!m) return `"${part.slice(0, 40)}" is not name=number (e.g. braking=5)`;
    if (!names.includes(m[1]!))
      return `unknown weight "${m[1]!.slice(0, 40)}"; the weights are ${names.join(', ')}`;
    const n = Number(m[2]);
    if (n > 100) return `${m[1]}=${m[2]}: a weight is at most 100 points`;
    out[m[1] as keyof ScoreWeights] = n;
  }
  return Object.freeze(out);
}

/** A plain decimal number (of seconds, or retries) at least `min`, for the worker's settings. */
const atLeast = (dflt: number, min: number, unit: string) =>
  z
    .string()
    .default(String(dflt))
    .pipe(z.string().regex(/^[0-9]+(\.[0-9]+)?$/, { error: `must be a number of ${unit} ≥ ${min}` }))
    .pipe(z.coerce.number())
    .pipe(z.number().min(min, { error: `must be a number of ${unit} ≥ ${min}` }));

export const configSchema = z.object({
  FLEET_COUNTRY: z
    .string()
    .optional()
    .refine((v) => v === undefined || isCountryCode(v), {
      error: (iss) => unknownCountryText(iss.input),
    })
    .meta({ example: 'za', set: true })
    .describe(
      'Two-letter region code; picks the regional base URL `https://fleetapi-{cc}.cartrack.com/rest` (`ke`, `sa`: `karooooo.com`). Set it or `FLEET_BASE_URL` to reach the API.',
    ),
  FLEET_BASE_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL, e.g. https://fleetapi-za.cartrack.com/rest',
    })
    .optional()
    // A password in the URL would be stored with the account and shown wherever the URL is.
    .refine((v) => v === undefined || !hasCredentials(v), {
      error: 'must not carry a user name or password: set FLEET_USERNAME and FLEET_PASSWORD instead',
    })
    .meta({ example: 'http://127.0.0.1:4010/rest' })
    .describe(
      "Overrides the regional URL (e.g. the simulator's `http://127.0.0.1:PORT/rest`). A URL with a user name or password in it is refused: credentials go in `FLEET_USERNAME`/`FLEET_PASSWORD` only.",
    ),
  FLEET_CHANGELOG_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL of the release notes records.json' })
    .optional()
    .meta({ example: 'https://developer.cartrack.com/changelog/records.json' })
    .describe(
      "The API's release-notes records, checked by every sync and by `changes`. Default: beside the base URL's `/rest` (`…/changelog/records.json`).",
    ),
  FLEET_USERNAME: z
    .string()
    .optional()
    .meta({ example: '', set: true })
    .describe(
      'Basic-auth user name (main account or a subuser). Needed by `sync`, and by `serve` with a schedule; the account key defaults to it.',
    ),
  FLEET_PASSWORD: z
    .string()
    .optional()
    .meta({ example: '', set: true })
    .describe('Basic-auth password. Never printed, logged or stored.'),
  FLEET_TIMEZONE: z
    .string()
    .default(DEFAULT_TIMEZONE)
    .refine(isValidTimeZone, {
      error: 'not an IANA time zone (e.g. Africa/Johannesburg, Australia/Sydney)',
    })
    .meta({ example: 'Africa/Johannesburg', set: true })
    .describe(
      "The account's IANA zone: request bounds and report calendars. It must be the zone the account is set to in the Fleet API. Fixed per account at its first sync: a later run with another zone (or with the variable unset, so the default applies) is refused, exit 2; change it only with `sync --rezone`.",
    ),
  FLEETSYNC_WORKING_HOURS: z
    .string()
    .default(DEFAULT_WORKING_HOURS_SPEC)
    .transform((t, ctx) => {
      const r = parseWorkingHours(t);
      if (r.ok) return r.value;
      ctx.issues.push({ code: 'custom', message: r.error, input: t });
      return z.NEVER;
    })
    .describe(
      'The account\'s working hours in its zone (days as a range or a comma list, then local start-end, e.g. `Mon-Thu,Sat 06:30-15:00`); engine-on time outside them is "after hours" in `utilisation`. An accounts file sets it per account (`working_hours`).',
    ),
  FLEETSYNC_SITES: z
    .string()
    .default(DEFAULT_SITES_SPEC)
    .transform((t, ctx) => {
      const r = parseSiteSelection(t);
      if (r.ok) return r.value;
      ctx.issues.push({ code: 'custom', message: r.error, input: t });
      return z.NEVER;
    })
    .meta({ example: 'Depot *,Customer site Penrith Plaza' })
    .describe(
      'The non-toll geofences (depots, customer sites, yards) whose visits are synced for `site_visits` and `site_activity`: `all`, `none` (toll visits only, as before), or geofence names separated by commas, `*` standing for any text (`Depot *` picks a group named alike). Toll visits are synced whatever it says. Every account of an accounts file uses it.',
    ),
  FLEETSYNC_ACCOUNT: z
    .string()
    .regex(/^[A-Za-z0-9_.@-]{1,64}$/, { error: 'letters, digits, _ . @ - only (at most 64)' })
    .optional()
    .meta({ example: 'main' })
    .describe(
      "Account key stored in every table. Default: the API username; else the database's only account.",
    ),
  FLEETSYNC_DB: z
    .string()
    .default(DEFAULT_DB_PATH)
    .describe('The DuckDB file. The demo uses `data/demo.duckdb` instead.'),
  FLEETSYNC_SCHEDULE: z
    .string()
    .optional()
    .refine((v) => v === undefined || validateCron(v), {
      error: 'not a valid cron expression (e.g. "0 2 * * *")',
    })
    .meta({ example: '0 2 * * *' })
    .describe(
      "Cron expression for `serve`'s scheduled sync (or the workers' tick), in the account's zone, e.g. `0 2 * * *`. Needs the API credentials (or `FLEETSYNC_CONFIG`): without them `serve` refuses to start (exit 2), naming what is missing.",
    ),
  // Plain decimal only: Number() would take 0x1F91, 1e3 or " 80" and listen somewhere unexpected.
  FLEETSYNC_PORT: z
    .string()
    .default(String(DEFAULT_PORT))
    .pipe(
      z.string().regex(/^[0-9]+$/, { error: 'must be a port number (a plain decimal integer, e.g. 8080)' }),
    )
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(0, { error: 'must be between 0 and 65535' }))
    .pipe(z.number().max(65535, { error: 'must be between 0 and 65535' }))
    .describe('Dashboard port, a plain decimal integer (`0x1F91` or `1e3` are refused); 0 picks a free one.'),
  FLEETSYNC_HOST: z
    .string()
    .default(DEFAULT_HOST)
    .describe('Bind address; a non-loopback address requires `FLEETSYNC_TOKEN`.'),
  FLEETSYNC_TOKEN: z
    .string()
    .min(16, { error: 'must be at least 16 characters' })
    .optional()
    .describe(
      'Bearer token for the dashboard, API and `/metrics` (required when `FLEETSYNC_HOST` is not loopback). Never printed.',
    ),
  FLEETSYNC_ALLOWED_HOSTS: z
    .string()
    .optional()
    .refine((v) => v === undefined || hostList(v).every(isHostEntry), {
      error:
        'a comma-separated list of host names, optionally with :port (e.g. fleet.example.com,10.0.0.5:8080)',
    })
    .meta({ example: 'fleet.example.com' })
    .describe(
      'Host names the server answers for besides `localhost`, `127.0.0.1`, `[::1]` and `FLEETSYNC_HOST`: comma-separated, a name (any port) or `name:port` (e.g. `fleet.example.com,10.0.0.5:8080`). Any other `Host` header gets 403 (against DNS rebinding); behind a proxy or in a container, list the name browsers use.',
    ),
  FLEETSYNC_RATE_WINDOW_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int()
    .min(100, { error: 'must be at least 100 ms' })
    .default(DEFAULT_RATE_WINDOW_MS)
    .describe("Length of the API's rate-limit window in ms (shorter only against the simulator)."),
  // A short window or a schedule by the second is for the simulator (on loopback); against another
  // host only with this set (fastTimingProblems).
  FLEETSYNC_ALLOW_FAST_TIMING: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true')
    .describe(
      'Allow a rate window under 60 s or a schedule by the second against an API that is not the simulator on loopback.',
    ),
  // Granted limits: `default=2000,POST /fuel/level=20` (sync-options.ts).
  FLEETSYNC_LIMITS: parsedBy('FLEETSYNC_LIMITS', parseLimits)
    .meta({ example: 'default=2000,POST /fuel/level=20' })
    .describe(
      'Rate limits granted to the account per bucket, e.g. `default=2000,POST /fuel/level=20` (docs/input-files.md).',
    ),
  // The streams to pull: `trips,odometer` or `-carpool` (sync-options.ts).
  FLEETSYNC_STREAMS: parsedBy('FLEETSYNC_STREAMS', parseStreams)
    .meta({ example: '-carpool,-drivers' })
    .describe(
      'Streams to pull in serve, worker and sync without --streams: `trips,odometer`, or `-carpool,-drivers` for all but those.',
    ),
  FLEETSYNC_HTTP_TIMEOUT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(1000, { error: 'must be between 1000 and 600000 ms' })
    .max(600_000, { error: 'must be between 1000 and 600000 ms' })
    .default(DEFAULT_HTTP_TIMEOUT_MS)
    .describe(
      "How long a request may wait for the API's answer, ms; a timed-out request is retried, then its window fails naming this setting.",
    ),
  FLEETSYNC_CONCURRENCY: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be between 1 and 64' })
    .max(64, { error: 'must be between 1 and 64' })
    .default(DEFAULT_CONCURRENCY)
    .describe(
      'Requests a sync keeps in flight. The rate buckets still pace them; raise it on a link with high latency.',
    ),
  FLEETSYNC_LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'])
    .default('info')
    .describe(
      'At `info` a sync logs its start, its plan, one line per stream and its end; `debug` adds a line per window, request, retry and 429.',
    ),
  // Alerts, health and metrics.
  FLEETSYNC_ALERT_WEBHOOK: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL (e.g. a Slack or Teams incoming webhook)' })
    .optional()
    .meta({ example: 'https://hooks.slack.com/services/…' })
    .describe(
      'Alerts as a JSON POST `{"text": …}` (a Slack or Teams incoming webhook shows it as is). Logged by its host only.',
    ),
  FLEETSYNC_SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587',
    })
    .optional()
    .meta({ example: 'smtp://user:password@mail.example.com:587' })
    .describe(
      'Alerts and the month-end pack by e-mail: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`. The password is never logged. Needs `FLEETSYNC_ALERT_EMAIL` or `FLEETSYNC_REPORT_TO`.',
    ),
  FLEETSYNC_ALERT_EMAIL: emailList()
    .meta({ example: 'fleet-ops@example.com' })
    .describe('Recipients of the alert e-mails, comma-separated. Needs `FLEETSYNC_SMTP_URL`.'),
  FLEETSYNC_ALERT_FROM: z
    .string()
    .regex(/^[^\s@]+@[^\s@]+$/, { error: 'must be an e-mail address' })
    .optional()
    .meta({ example: 'fleetsync@example.com' })
    .describe('Sender of the alert e-mails and the month-end pack. Default: `fleetsync@<host name>`.'),
  FLEETSYNC_STALE_HOURS: z
    .string()
    .default(String(DEFAULT_STALE_HOURS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of hours (e.g. 48)' }))
    .pipe(z.coerce.number())
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: 'must be between 1 and 8760 hours' })
        .max(8760, { error: 'must be between 1 and 8760 hours' }),
    )
    .describe(
      'Data is stale when no new complete day arrived for this many hours: an alert, and `/healthz` answers 503.',
    ),
  FLEETSYNC_MAX_LATENESS_DAYS: z
    .string()
    .default(String(DEFAULT_MAX_LATENESS_DAYS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of days (e.g. 14)' }))
    .pipe(z.coerce.number())
    .pipe(
      z
        .number()
        .int()
        .min(1, { error: 'must be between 1 and 365 days' })
        .max(365, { error: 'must be between 1 and 365 days' }),
    )
    .describe(
      'How long a window waits for a late vehicle\'s data, in days; after that it is accepted and flagged "accepted incomplete" with the reason.',
    ),
  FLEETSYNC_FUEL_DROP_L: z
    .string()
    .default(String(DEFAULT_FUEL_DROP_L))
    .pipe(z.string().regex(/^[0-9]+(\.[0-9]+)?$/, { error: 'must be a number of litres (e.g. 8)' }))
    .pipe(z.coerce.number())
    .pipe(
      z
        .number()
        .min(0.5, { error: 'must be between 0.5 and 1000 litres' })
        .max(1000, { error: 'must be between 0.5 and 1000 litres' }),
    )
    .describe(
      'The `fuel_drops` threshold: a parked fall of the tank level larger than this many litres within 30 minutes is a suspected drop. Read by `serve` and `export`.',
    ),
  FLEETSYNC_TAX_YEAR_START: z
    .string()
    .regex(/^(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])$/, {
      error: 'must be a month and day MM-DD, day 01–28 (e.g. 03-01)',
    })
    .optional()
    .describe(
      'The first day (`MM-DD`) of the tax year of the `logbook_years` report. Default by `FLEET_COUNTRY`: `03-01` for za (SARS, 1 March–end February), `07-01` for au (ATO, 1 July–30 June), `04-01` for nz (IRD, 1 April–31 March), else `01-01`. Read by `serve` and `export`.',
    ),
  // Driver scorecards and fuel efficiency (issue 27; docs/reports.md).
  FLEETSYNC_SCORE_WEIGHTS: z
    .string()
    .default(weightsText(DEFAULT_SCORE_WEIGHTS))
    .transform((t, ctx) => {
      const r = parseScoreWeights(t);
      if (typeof r !== 'string') return r;
      ctx.issues.push({ code: 'custom', message: r, input: t });
      return z.NEVER;
    })
    .describe(
      `The driver_scores weights: points a driver loses per event per 100 km (\`speeding_min\`: per minute of speeding per 100 km); score = max(0, 100 − Σ weight × rate). Comma list of name=number; names left out keep their default (${weightsText(DEFAULT_SCORE_WEIGHTS)}).`,
    ),
  FLEETSYNC_SCORE_MIN_KM: z
    .string()
    .default(String(DEFAULT_SCORE_MIN_KM))
    .pipe(z.string().regex(/^[0-9]+(\.[0-9]+)?$/, { error: 'must be a number of km (e.g. 100)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().max(100_000, { error: 'must be at most 100000 km' }))
    .describe(
      'A driver-month with less trip distance than this many km is listed in `driver_scores` but not ranked.',
    ),
  FLEETSYNC_FUEL_OUTLIER_PCT: z
    .string()
    .default(String(DEFAULT_FUEL_OUTLIER_PCT))
    .pipe(z.string().regex(/^[0-9]+(\.[0-9]+)?$/, { error: 'must be a percentage (e.g. 15)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().max(1000, { error: 'must be at most 1000 %' }))
    .describe(
      "`fuel_efficiency`: a vehicle-month whose L/100 km is more than this many percent above the vehicle's own 3-month baseline is flagged an outlier.",
    ),
  // Failing fast (issue 13): the circuit breaker and the log format.
  FLEETSYNC_BREAKER_FAILURES: z
    .string()
    .default(String(DEFAULT_BREAKER_FAILURES))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of requests (e.g. 20)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(1, { error: 'must be between 1 and 10000' }))
    .pipe(z.number().max(10_000, { error: 'must be between 1 and 10000' }))
    .describe(
      'The circuit breaker: a run stops (exit 1) once the API has answered this many requests in a row with nothing but connection errors, timeouts or 5xx.',
    ),
  FLEETSYNC_BREAKER_MS: z
    .string()
    .default(String(DEFAULT_BREAKER_MS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of milliseconds (e.g. 120000)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(1000, { error: 'must be between 1000 and 86400000 ms' }))
    .pipe(z.number().max(86_400_000, { error: 'must be between 1000 and 86400000 ms' }))
    .describe('… or has answered nothing else for this long, in ms, whichever comes first.'),
  FLEETSYNC_LOG_FORMAT: z
    .enum(['text', 'json'], { error: 'must be text or json' })
    .default('text')
    .describe(
      '`text` (`time level message key=value …`) or `json` (one JSON object per line with `time`, `level`, `msg` and the fields, for log shippers).',
    ),
  FLEETSYNC_SYNC_HEAP: z
    .enum(SYNC_HEAPS, { error: 'must be small or fast' })
    .default('small')
    .describe(
      "V8's heap in a process that syncs (`sync`, `worker`, `serve`): `small` keeps it near what the sync holds (peak RSS ~300–360 MB instead of 430–510 MB at 200 vehicles, for ~1.1–1.4× the sync's CPU, which at the API's real limits does not change a run's length; `serve` keeps its heap smaller still, 84 instead of 178 MB while a sync and downloads run), and a `fleetsync sync` of one account runs DuckDB within 128 MB instead of 256 MB; `fast` keeps V8's defaults and DuckDB's 256 MB (a small-heap sync raises its pool to 256 MB by itself when a commit does not fit).",
    ),
  FLEETSYNC_REPORT_SCHEDULE: z
    .string()
    .optional()
    .refine((v) => v === undefined || validateCron(v), {
      error: 'not a valid cron expression (e.g. "0 7 * * *")',
    })
    .meta({ example: '0 7 * * *' })
    .describe(
      'Cron expression (account zone) on which `serve` checks for the month-end pack of the month before, e.g. `0 7 * * *`. Needs `FLEETSYNC_REPORT_TO`. A month\'s pack is sent once: when "complete through" covers its last day, or at the deadline below.',
    ),
  FLEETSYNC_REPORT_TO: emailList()
    .meta({ example: 'finance@example.com' })
    .describe(
      'Recipients of the month-end pack, comma-separated. Needs `FLEETSYNC_SMTP_URL`; the sender is `FLEETSYNC_ALERT_FROM`.',
    ),
  FLEETSYNC_REPORT_DEADLINE_DAYS: z
    .string()
    .default(String(DEFAULT_REPORT_DEADLINE_DAYS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of days (e.g. 5)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(0, { error: 'must be between 0 and 28 days' }))
    .pipe(z.number().max(28, { error: 'must be between 0 and 28 days' }))
    .describe(
      'Days after a month ends (at local midnight) when a month still incomplete is sent anyway, marked "(partial)" with the reason.',
    ),
  // Files named at start.
  FLEETSYNC_ENV_FILE: z
    .string()
    .optional()
    .meta({ example: '/etc/fleetsync/env' })
    .describe(
      'The environment file every command reads at start (default `./.env` when there is one; docs/input-files.md). Read before everything else, so set it in the environment, not in a file.',
    ),
  FLEETSYNC_CONFIG: z
    .string()
    .optional()
    .meta({ example: 'accounts.json' })
    .describe(
      'An accounts file (JSON) for several accounts: `serve`, `sync` and `worker` run each of them; it replaces `FLEET_USERNAME`/`FLEET_PASSWORD` (docs/input-files.md).',
    ),
  FLEETSYNC_PRICES: z
    .string()
    .optional()
    .meta({ example: 'prices.json' })
    .describe(
      'The prices file (JSON) behind the `costs` and `toll_charges` reports, checked and stored at start by `serve`, `demo` and `export` (docs/reports.md → The prices file).',
    ),
  FLEETSYNC_SUBSCRIPTIONS: z
    .string()
    .optional()
    .meta({ example: 'subscriptions.json' })
    .describe(
      "The subscriptions file (JSON): reports e-mailed on a cron schedule in the account's zone, each for a period relative to the send (yesterday, last week, last month, month to date), as CSV, XLSX or both. `serve` sends them; `send-report <name>` sends one now. Needs `FLEETSYNC_SMTP_URL` (docs/subscriptions.md).",
    ),
  FLEETSYNC_SERVICE_PLAN: z
    .string()
    .optional()
    .meta({ example: 'service-plan.json' })
    .describe(
      'The service plan file (JSON or CSV: intervals by vehicle, class or fleet, services done) behind the `service_due` report, checked and stored at start by `serve`, `demo` and `export` (docs/service.md).',
    ),
  // Worker mode (src/worker/): the queue in Postgres, the files, the lake.
  FLEETSYNC_QUEUE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { error: 'set a Postgres URL (postgres://user:password@host:5432/db)' })
    .optional()
    .meta({ example: 'postgres://fleetsync:password@127.0.0.1:5432/fleetsync' })
    .describe(
      'Worker mode: the Postgres database of the job queue, `postgres://user:password@host:5432/db`. Needed by `worker`; the password is never logged.',
    ),
  FLEETSYNC_DATA_DIR: z
    .string()
    .optional()
    .meta({ example: 'data' })
    .describe(
      "Worker mode: each account's DuckDB file is `<dir>/accounts/<account>.duckdb`. Default: the directory of `FLEETSYNC_DB`.",
    ),
  FLEETSYNC_LAKE_DIR: z
    .string()
    .optional()
    .meta({ example: 'data/lake' })
    .describe(
      "Worker mode: the Parquet lake each job publishes the account's tables to (`serve --lake` reads it). Unset: nothing is published.",
    ),
  FLEETSYNC_JOB_EXPIRE_SECONDS: atLeast(4 * 3600, 1, 'seconds').describe(
    'Worker mode: seconds a job may run before it counts as lost (a worker killed mid-job) and is retried by another worker.',
  ),
  FLEETSYNC_JOB_RETRIES: atLeast(3, 0, 'retries').describe(
    'Worker mode: retries of a failed job (with backoff) before it goes to the dead-letter queue and alerts.',
  ),
  FLEETSYNC_JOB_RETRY_DELAY_SECONDS: atLeast(60, 0, 'seconds').describe(
    "Worker mode: the first retry's delay in seconds (it doubles with each retry).",
  ),
  FLEETSYNC_QUEUE_MAINTENANCE_SECONDS: atLeast(60, 1, 'seconds').describe(
    "Worker mode: how often the queue's maintenance looks for expired jobs, in seconds.",
  ),
  FLEETSYNC_QUEUE_POLL_SECONDS: atLeast(2, 0.5, 'seconds').describe(
    'Worker mode: how often an idle worker asks the queue for a job, in seconds.',
  ),
  FLEETSYNC_QUEUE_CRON_SECONDS: atLeast(30, 1, 'seconds').describe(
    'Worker mode: how often the queue looks at `FLEETSYNC_SCHEDULE`, in seconds (a tick fires within this after its minute); more than 45 counts as 45.',
  ),
  FLEETSYNC_QUEUE_OUTAGE_SECONDS: atLeast(600, 1, 'seconds').describe(
    'Worker mode: how long Postgres may be unreachable before the worker stops (exit 75, restartable), in seconds.',
  ),
});

export interface LoadOptions {
  /** The command talks to the Fleet API: credentials and a region are required (unless FLEETSYNC_CONFIG names an accounts file). */
  needApi?: boolean;
  /** The command runs FLEETSYNC_SCHEDULE (serve): a schedule needs something to sync with. */
  runsSchedule?: boolean;
  /**
   * The command sends no mail (`send-report --list`): the settings that name recipients
   * (FLEETSYNC_ALERT_EMAIL, FLEETSYNC_REPORT_TO, FLEETSYNC_SUBSCRIPTIONS) do not need FLEETSYNC_SMTP_URL.
   */
  sendsNoMail?: boolean;
}

export function loadConfig(env: Env, opts: LoadOptions = {}): Readonly<Config> {
  const raw = Object.fromEntries(Object.keys(configSchema.shape ?? {}).map((k) => [k, nonEmpty(env[k])]));
  const parsed = configSchema.safeParse(raw);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${issue.path.join('.') || 'config'}: ${issue.message}`);
  }
  // Checked here rather than in a zod refinement, which zod skips when any field is invalid:
  // every problem is named at once.
  const host = nonEmpty(env.FLEETSYNC_HOST) ?? DEFAULT_HOST;
  if (!isLoopbackHost(host) && !nonEmpty(env.FLEETSYNC_TOKEN))
    problems.push(`FLEETSYNC_TOKEN: required when FLEETSYNC_HOST (${host}) is not a loopback address`);
  // Alerts: e-mail needs both the server and the recipients (of alerts or of the month-end pack).
  if (
    nonEmpty(env.FLEETSYNC_SMTP_URL) &&
    !nonEmpty(env.FLEETSYNC_ALERT_EMAIL) &&
    !nonEmpty(env.FLEETSYNC_REPORT_TO) &&
    !nonEmpty(env.FLEETSYNC_SUBSCRIPTIONS)
  )
    problems.push('FLEETSYNC_ALERT_EMAIL: required with FLEETSYNC_SMTP_URL (who gets the alerts)');
  const mailServerNeeded = !opts.sendsNoMail && !nonEmpty(env.FLEETSYNC_SMTP_URL);
  if (mailServerNeeded && nonEmpty(env.FLEETSYNC_ALERT_EMAIL))
    problems.push(
      'FLEETSYNC_SMTP_URL: required with FLEETSYNC_ALERT_EMAIL (the mail server that sends them)',
    );
  // The month-end pack: recipients and a mail server, or nothing to send.
  if (mailServerNeeded && nonEmpty(env.FLEETSYNC_REPORT_TO))
    problems.push(
      'FLEETSYNC_SMTP_URL: required with FLEETSYNC_REPORT_TO (the mail server that sends the pack)',
    );
  if (nonEmpty(env.FLEETSYNC_REPORT_SCHEDULE) && !nonEmpty(env.FLEETSYNC_REPORT_TO))
    problems.push(
      'FLEETSYNC_REPORT_TO: required with FLEETSYNC_REPORT_SCHEDULE (who gets the month-end pack)',
    );
  // Subscriptions: the file names the recipients; the mail server is the one setting.
  if (mailServerNeeded && nonEmpty(env.FLEETSYNC_SUBSCRIPTIONS))
    problems.push(
      'FLEETSYNC_SMTP_URL: required with FLEETSYNC_SUBSCRIPTIONS (the mail server that sends the subscriptions)',
    );
  // An accounts file names its own API and credentials (src/accounts.ts checks them).
  if (opts.needApi && !nonEmpty(env.FLEETSYNC_CONFIG)) {
    if (!nonEmpty(env.FLEET_COUNTRY) && !nonEmpty(env.FLEET_BASE_URL))
      problems.push(`FLEET_COUNTRY: set a country code (one of ${ACCEPTED_REGION_CODES}) or FLEET_BASE_URL`);
    if (!nonEmpty(env.FLEET_USERNAME)) problems.push('FLEET_USERNAME: required');
    if (!nonEmpty(env.FLEET_PASSWORD)) problems.push('FLEET_PASSWORD: required');
  }
  // A schedule that can never run must not look as if it will (serve used to print "off" and
  // serve on): without credentials (or an accounts file) it is a configuration error.
  if (opts.runsSchedule && nonEmpty(env.FLEETSYNC_SCHEDULE) && !nonEmpty(env.FLEETSYNC_CONFIG)) {
    const missing = [
      ...(!nonEmpty(env.FLEET_COUNTRY) && !nonEmpty(env.FLEET_BASE_URL)
        ? ['FLEET_COUNTRY or FLEET_BASE_URL']
        : []),
      ...(!nonEmpty(env.FLEET_USERNAME) ? ['FLEET_USERNAME'] : []),
      ...(!nonEmpty(env.FLEET_PASSWORD) ? ['FLEET_PASSWORD'] : []),
    ];
    if (missing.length)
      problems.push(
        `FLEETSYNC_SCHEDULE: a scheduled sync needs the API credentials, but ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set (or set FLEETSYNC_CONFIG; unset FLEETSYNC_SCHEDULE to serve without syncing)`,
      );
  }
  // Timing meant for the simulator, against the API named here (an accounts file: loadAccounts).
  if (parsed.success && !nonEmpty(env.FLEETSYNC_CONFIG)) {
    const v = parsed.data;
    const url = v.FLEET_BASE_URL ?? (v.FLEET_COUNTRY ? baseUrlForCountry(v.FLEET_COUNTRY) : null);
    if (url)
      problems.push(
        ...fastTimingProblems(
          {
            schedule: v.FLEETSYNC_SCHEDULE ?? null,
            rateWindowMs: v.FLEETSYNC_RATE_WINDOW_MS,
            allowFastTiming: v.FLEETSYNC_ALLOW_FAST_TIMING,
          },
          url,
        ),
      );
  }
  if (problems.length || !parsed.success) {
    throw new FleetsyncError('E_CONFIG', `invalid configuration:\n  - ${problems.join('\n  - ')}`, {
      details: { problems },
    });
  }
  const v = parsed.data;
  const baseUrl = v.FLEET_BASE_URL
    ? v.FLEET_BASE_URL.replace(/\/+$/, '')
    : v.FLEET_COUNTRY
      ? baseUrlForCountry(v.FLEET_COUNTRY)
      : null;
  return Object.freeze({
    account: v.FLEETSYNC_ACCOUNT ?? v.FLEET_USERNAME ?? 'default',
    accountSource: v.FLEETSYNC_ACCOUNT
      ? 'FLEETSYNC_ACCOUNT'
      : v.FLEET_USERNAME
        ? 'FLEET_USERNAME'
        : 'default',
    baseUrl,
    username: v.FLEET_USERNAME ?? null,
    password: v.FLEET_PASSWORD ?? null,
    timezone: v.FLEET_TIMEZONE,
    timezoneSource: nonEmpty(env.FLEET_TIMEZONE) ? 'FLEET_TIMEZONE' : 'default',
    workingHours: v.FLEETSYNC_WORKING_HOURS,
    sites: v.FLEETSYNC_SITES,
    dbPath: v.FLEETSYNC_DB,
    schedule: v.FLEETSYNC_SCHEDULE ?? null,
    port: v.FLEETSYNC_PORT,
    host: v.FLEETSYNC_HOST,
    token: v.FLEETSYNC_TOKEN ?? null,
    allowedHosts: hostList(v.FLEETSYNC_ALLOWED_HOSTS ?? ''),
    rateWindowMs: v.FLEETSYNC_RATE_WINDOW_MS,
    allowFastTiming: v.FLEETSYNC_ALLOW_FAST_TIMING,
    ...(v.FLEETSYNC_LIMITS ? { limits: v.FLEETSYNC_LIMITS } : {}),
    streams: v.FLEETSYNC_STREAMS ?? null,
    httpTimeoutMs: v.FLEETSYNC_HTTP_TIMEOUT_MS,
    concurrency: v.FLEETSYNC_CONCURRENCY,
    changelogUrl: v.FLEET_CHANGELOG_URL ?? null,
    logLevel: v.FLEETSYNC_LOG_LEVEL,
    alertWebhook: v.FLEETSYNC_ALERT_WEBHOOK ?? null,
    smtpUrl: v.FLEETSYNC_SMTP_URL ?? null,
    alertEmail: (v.FLEETSYNC_ALERT_EMAIL ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    alertFrom: v.FLEETSYNC_ALERT_FROM ?? null,
    staleHours: v.FLEETSYNC_STALE_HOURS,
    maxLateMs: v.FLEETSYNC_MAX_LATENESS_DAYS * 86_400_000,
    fuelDropL: v.FLEETSYNC_FUEL_DROP_L,
    taxYearStart: v.FLEETSYNC_TAX_YEAR_START ?? taxYearStartFor(v.FLEET_COUNTRY),
    scoreWeights: v.FLEETSYNC_SCORE_WEIGHTS,
    scoreMinKm: v.FLEETSYNC_SCORE_MIN_KM,
    fuelOutlierPct: v.FLEETSYNC_FUEL_OUTLIER_PCT,
    breakerFailures: v.FLEETSYNC_BREAKER_FAILURES,
    breakerMs: v.FLEETSYNC_BREAKER_MS,
    logFormat: v.FLEETSYNC_LOG_FORMAT,
    syncHeap: v.FLEETSYNC_SYNC_HEAP,
    reportSchedule: v.FLEETSYNC_REPORT_SCHEDULE ?? null,
    reportTo: (v.FLEETSYNC_REPORT_TO ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean),
    reportDeadlineDays: v.FLEETSYNC_REPORT_DEADLINE_DAYS,
    accountsFile: v.FLEETSYNC_CONFIG ?? null,
    subscriptionsFile: v.FLEETSYNC_SUBSCRIPTIONS ?? null,
    pricesFile: v.FLEETSYNC_PRICES ?? null,
    servicePlanFile: v.FLEETSYNC_SERVICE_PLAN ?? null,
    worker: {
      queueUrl: v.FLEETSYNC_QUEUE_URL ?? null,
      dataDir: v.FLEETSYNC_DATA_DIR ?? join(v.FLEETSYNC_DB, '..'),
      lakeDir: v.FLEETSYNC_LAKE_DIR ?? null,
      expireSeconds: v.FLEETSYNC_JOB_EXPIRE_SECONDS,
      retryLimit: v.FLEETSYNC_JOB_RETRIES,
      retryDelaySeconds: v.FLEETSYNC_JOB_RETRY_DELAY_SECONDS,
      maintenanceSeconds: v.FLEETSYNC_QUEUE_MAINTENANCE_SECONDS,
      pollSeconds: v.FLEETSYNC_QUEUE_POLL_SECONDS,
      cronSeconds: Math.min(45, v.FLEETSYNC_QUEUE_CRON_SECONDS),
      outageSeconds: v.FLEETSYNC_QUEUE_OUTAGE_SECONDS,
    },
  });
}

/**
 * A cron expression that fires more often than once a minute: six fields whose first (seconds)
 * is anything but one second (every second, a step of seconds, a list such as `0,30 * * * * *`).
 */
export function firesEverySecond(cron: string): boolean {
  const fields = cron.trim().split(/\s+/);
  return fields.length === 6 && !/^\d{1,2}$/.test(fields[0]!);
}

/** The API's URL is on loopback: the simulator (`fleetsync simulate`, `demo`, tests). */
export function isSimulatorUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

/**
 * Timing meant for the simulator against another API: a schedule by the second, or a rate window
 * shorter than the documented 60 s (which would send more than the real limits allow and draw
 * 429s). Allowed on loopback, or anywhere with FLEETSYNC_ALLOW_FAST_TIMING=true.
 */
export function fastTimingProblems(
  c: Pick<Config, 'schedule' | 'rateWindowMs' | 'allowFastTiming'>,
  url: string,
  where = '',
): string[] {
  if (c.allowFastTiming || isSimulatorUrl(url)) return [];
  const against = `against ${url}${where}, which is not the simulator on loopback (FLEETSYNC_ALLOW_FAST_TIMING=true allows it for a simulator elsewhere)`;
  const out: string[] = [];
  if (c.schedule && firesEverySecond(c.schedule))
    out.push(
      `FLEETSYNC_SCHEDULE: "${c.schedule}" runs more often than once a minute ${against}; use five fields, e.g. "0 2 * * *"`,
    );
  if (c.rateWindowMs < DEFAULT_RATE_WINDOW_MS)
    out.push(
      `FLEETSYNC_RATE_WINDOW_MS: ${c.rateWindowMs} ms is shorter than the API's documented ${DEFAULT_RATE_WINDOW_MS / 1000} s window ${against}; leave it unset`,
    );
  return out;
}

/**
 * The settings a new user sets (the schema's `set: true`: what .env.example leaves uncommented)
 * when every one of them still holds .env.example's value — an untouched copy, whose empty
 * credentials `sync --plan` would otherwise plan with as if all were well. Empty: not untouched.
 */
export function untouchedExample(env: Env): string[] {
  const shape = configSchema.shape as Record<string, z.ZodType>;
  const set = Object.entries(shape).flatMap(([name, field]) => {
    const meta = (field.meta() ?? {}) as { example?: string; set?: boolean };
    return meta.set ? [{ name, example: meta.example ?? '' }] : [];
  });
  if (set.length === 0 || set.some((v) => nonEmpty(env[v.name]) !== nonEmpty(v.example))) return [];
  return set.map((v) => (v.example === '' ? `${v.name} (empty)` : `${v.name}=${v.example}`));
}

/** The secrets of a config, for the log redactor. */
export const secretsOf = (c: Config): string[] =>
  [c.password, c.token, c.worker.queueUrl, ...alertSecretsOf(c)].filter((s): s is string => !!s);

/** The SMTP password (as written and decoded) and the webhook URL, whose path is often its token. */
function alertSecretsOf(c: Pick<Config, 'smtpUrl' | 'alertWebhook'>): string[] {
  const out: string[] = [];
  if (c.alertWebhook) {
    const u = new URL(c.alertWebhook);
    out.push(c.alertWebhook);
    // The path and query of a Slack/Teams URL are its token (a bare "/" is not).
    if ((u.pathname + u.search).length >= 8) out.push(u.pathname + u.search);
  }
  if (c.smtpUrl) {
    const pw = new URL(c.smtpUrl).password;
    if (pw) out.push(pw, decodeURIComponent(pw));
  }
  return out;
}
