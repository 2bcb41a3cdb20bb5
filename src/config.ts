/**
 * Configuration: one zod schema over the environment, parsed once at start-up into a frozen
 * object. Every problem is reported at once, each naming its variable. Secrets come only from
 * the environment and are never printed (see `describeConfig`).
 */
import { SYNC_HEAPS, type SyncHeap } from './heap.ts';
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
  DEFAULT_TIMEZONE,
} from './defaults.ts';
import { FleetsyncError } from './errors.ts';
import { baseUrlForCountry, isCountryCode } from './api/regions.ts';
import { parseLimits, parseStreams, type Limits, type Parsed } from './sync-options.ts';
import { isValidTimeZone } from './time.ts';
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
  // Failing fast (issue 13): the circuit breaker and the log format.
  /** Failed API exchanges in a row that stop a run (FLEETSYNC_BREAKER_FAILURES). */
  breakerFailures: number;
  /** Time with nothing but failed API exchanges that stops a run, ms (FLEETSYNC_BREAKER_MS). */
  breakerMs: number;
  /** `text` (key=value) or `json` (one object per line, for log shippers). */
  logFormat: 'text' | 'json';
  /** FLEETSYNC_SYNC_HEAP: V8's heap in a process that only syncs (heap.ts; applied at the entry). */
  syncHeap: SyncHeap;
  // The month-end pack by e-mail (issue 14, src/reports/pack.ts).
  /** FLEETSYNC_REPORT_SCHEDULE: cron, in the account's zone, when `serve` checks for a closed month. */
  reportSchedule: string | null;
  /** FLEETSYNC_REPORT_TO: who gets the pack (comma-separated in the variable); needs FLEETSYNC_SMTP_URL. */
  reportTo: string[];
  /** FLEETSYNC_REPORT_DEADLINE_DAYS: days after a month's end when an incomplete month is sent as partial. */
  reportDeadlineDays: number;
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

const schema = z.object({
  FLEET_COUNTRY: z
    .string()
    .optional()
    .refine((v) => v === undefined || isCountryCode(v), {
      error: 'unknown country code (expected one of the regional codes, e.g. za, au, ke)',
    }),
  FLEET_BASE_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an http(s) URL, e.g. https://fleetapi-za.cartrack.com/rest',
    })
    .optional()
    // A password in the URL would be stored with the account and shown wherever the URL is.
    .refine((v) => v === undefined || !hasCredentials(v), {
      error: 'must not carry a user name or password: set FLEET_USERNAME and FLEET_PASSWORD instead',
    }),
  FLEET_CHANGELOG_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL of the release notes records.json' })
    .optional(),
  FLEET_USERNAME: z.string().optional(),
  FLEET_PASSWORD: z.string().optional(),
  FLEET_TIMEZONE: z.string().default(DEFAULT_TIMEZONE).refine(isValidTimeZone, {
    error: 'not an IANA time zone (e.g. Africa/Johannesburg, Australia/Sydney)',
  }),
  FLEETSYNC_WORKING_HOURS: z
    .string()
    .default(DEFAULT_WORKING_HOURS_SPEC)
    .transform((t, ctx) => {
      const r = parseWorkingHours(t);
      if (r.ok) return r.value;
      ctx.issues.push({ code: 'custom', message: r.error, input: t });
      return z.NEVER;
    }),
  FLEETSYNC_ACCOUNT: z
    .string()
    .regex(/^[A-Za-z0-9_.@-]{1,64}$/, { error: 'letters, digits, _ . @ - only (at most 64)' })
    .optional(),
  FLEETSYNC_DB: z.string().default(DEFAULT_DB_PATH),
  FLEETSYNC_SCHEDULE: z
    .string()
    .optional()
    .refine((v) => v === undefined || validateCron(v), {
      error: 'not a valid cron expression (e.g. "0 2 * * *")',
    }),
  // Plain decimal only: Number() would take 0x1F91, 1e3 or " 80" and listen somewhere unexpected.
  FLEETSYNC_PORT: z
    .string()
    .default(String(DEFAULT_PORT))
    .pipe(
      z.string().regex(/^[0-9]+$/, { error: 'must be a port number (a plain decimal integer, e.g. 8080)' }),
    )
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(0, { error: 'must be between 0 and 65535' }))
    .pipe(z.number().max(65535, { error: 'must be between 0 and 65535' })),
  FLEETSYNC_HOST: z.string().default(DEFAULT_HOST),
  FLEETSYNC_TOKEN: z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  FLEETSYNC_ALLOWED_HOSTS: z
    .string()
    .optional()
    .refine((v) => v === undefined || hostList(v).every(isHostEntry), {
      error:
        'a comma-separated list of host names, optionally with :port (e.g. fleet.example.com,10.0.0.5:8080)',
    }),
  FLEETSYNC_RATE_WINDOW_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int()
    .min(100, { error: 'must be at least 100 ms' })
    .default(DEFAULT_RATE_WINDOW_MS),
  // A short window or a schedule by the second is for the simulator (on loopback); against another
  // host only with this set (fastTimingProblems).
  FLEETSYNC_ALLOW_FAST_TIMING: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  // Granted limits: `default=2000,POST /fuel/level=20` (sync-options.ts).
  FLEETSYNC_LIMITS: parsedBy('FLEETSYNC_LIMITS', parseLimits),
  // The streams to pull: `trips,odometer` or `-carpool` (sync-options.ts).
  FLEETSYNC_STREAMS: parsedBy('FLEETSYNC_STREAMS', parseStreams),
  FLEETSYNC_HTTP_TIMEOUT_MS: z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(1000, { error: 'must be between 1000 and 600000 ms' })
    .max(600_000, { error: 'must be between 1000 and 600000 ms' })
    .default(DEFAULT_HTTP_TIMEOUT_MS),
  FLEETSYNC_CONCURRENCY: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be between 1 and 64' })
    .max(64, { error: 'must be between 1 and 64' })
    .default(DEFAULT_CONCURRENCY),
  FLEETSYNC_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Alerts, health and metrics.
  FLEETSYNC_ALERT_WEBHOOK: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL (e.g. a Slack or Teams incoming webhook)' })
    .optional(),
  FLEETSYNC_SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: 'must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587',
    })
    .optional(),
  FLEETSYNC_ALERT_EMAIL: emailList(),
  FLEETSYNC_ALERT_FROM: z
    .string()
    .regex(/^[^\s@]+@[^\s@]+$/, { error: 'must be an e-mail address' })
    .optional(),
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
    ),
  // Failing fast (issue 13): the circuit breaker and the log format.
  FLEETSYNC_BREAKER_FAILURES: z
    .string()
    .default(String(DEFAULT_BREAKER_FAILURES))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of requests (e.g. 20)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(1, { error: 'must be between 1 and 10000' }))
    .pipe(z.number().max(10_000, { error: 'must be between 1 and 10000' })),
  FLEETSYNC_BREAKER_MS: z
    .string()
    .default(String(DEFAULT_BREAKER_MS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of milliseconds (e.g. 120000)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(1000, { error: 'must be between 1000 and 86400000 ms' }))
    .pipe(z.number().max(86_400_000, { error: 'must be between 1000 and 86400000 ms' })),
  FLEETSYNC_LOG_FORMAT: z.enum(['text', 'json'], { error: 'must be text or json' }).default('text'),
  FLEETSYNC_SYNC_HEAP: z.enum(SYNC_HEAPS, { error: 'must be small or fast' }).default('small'),
  FLEETSYNC_REPORT_SCHEDULE: z
    .string()
    .optional()
    .refine((v) => v === undefined || validateCron(v), {
      error: 'not a valid cron expression (e.g. "0 7 * * *")',
    }),
  FLEETSYNC_REPORT_TO: emailList(),
  FLEETSYNC_REPORT_DEADLINE_DAYS: z
    .string()
    .default(String(DEFAULT_REPORT_DEADLINE_DAYS))
    .pipe(z.string().regex(/^[0-9]+$/, { error: 'must be a whole number of days (e.g. 5)' }))
    .pipe(z.coerce.number())
    .pipe(z.number().int().min(0, { error: 'must be between 0 and 28 days' }))
    .pipe(z.number().max(28, { error: 'must be between 0 and 28 days' })),
});

export interface LoadOptions {
  /** The command talks to the Fleet API: credentials and a region are required. */
  needApi?: boolean;
  /** The command runs FLEETSYNC_SCHEDULE (serve): a schedule needs something to sync with. */
  runsSchedule?: boolean;
}

export function loadConfig(env: Env, opts: LoadOptions = {}): Readonly<Config> {
  const raw = Object.fromEntries(Object.keys(schema.shape ?? {}).map((k) => [k, nonEmpty(env[k])]));
  const parsed = schema.safeParse(raw);
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
    !nonEmpty(env.FLEETSYNC_REPORT_TO)
  )
    problems.push('FLEETSYNC_ALERT_EMAIL: required with FLEETSYNC_SMTP_URL (who gets the alerts)');
  if (nonEmpty(env.FLEETSYNC_ALERT_EMAIL) && !nonEmpty(env.FLEETSYNC_SMTP_URL))
    problems.push(
      'FLEETSYNC_SMTP_URL: required with FLEETSYNC_ALERT_EMAIL (the mail server that sends them)',
    );
  // The month-end pack: recipients and a mail server, or nothing to send.
  if (nonEmpty(env.FLEETSYNC_REPORT_TO) && !nonEmpty(env.FLEETSYNC_SMTP_URL))
    problems.push(
      'FLEETSYNC_SMTP_URL: required with FLEETSYNC_REPORT_TO (the mail server that sends the pack)',
    );
  if (nonEmpty(env.FLEETSYNC_REPORT_SCHEDULE) && !nonEmpty(env.FLEETSYNC_REPORT_TO))
    problems.push(
      'FLEETSYNC_REPORT_TO: required with FLEETSYNC_REPORT_SCHEDULE (who gets the month-end pack)',
    );
  if (opts.needApi) {
    if (!nonEmpty(env.FLEET_COUNTRY) && !nonEmpty(env.FLEET_BASE_URL))
      problems.push('FLEET_COUNTRY: set a country code (e.g. za) or FLEET_BASE_URL');
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

/** The secrets of a config, for the log redactor. */
export const secretsOf = (c: Config): string[] =>
  [c.password, c.token, ...alertSecretsOf(c)].filter((s): s is string => !!s);

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
