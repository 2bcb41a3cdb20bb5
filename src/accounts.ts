/**
 * The accounts a sync pulls. One account from the environment (FLEET_COUNTRY / FLEET_BASE_URL,
 * FLEET_USERNAME, FLEET_PASSWORD, FLEET_TIMEZONE), or several from the JSON file named by
 * FLEETSYNC_CONFIG:
 *
 *   { "accounts": [
 *       { "account": "za-fleet", "country": "za", "username": "acme",
 *         "password_env": "ZA_FLEET_PASSWORD", "timezone": "Africa/Johannesburg" },
 *       { "account": "au-pool", "base_url": "https://fleetapi-au.cartrack.com/rest",
 *         "username": "acme-au", "password_env": "AU_POOL_PASSWORD", "timezone": "Australia/Sydney" } ] }
 *
 * Secrets stay in the environment: the file names the variable that holds each password and a
 * `password` key in the file is refused. Every problem is reported at once, each with its place.
 */
import { z } from 'zod';
import { baseUrlForCountry, isCountryCode, unknownCountryText } from './api/regions.ts';
import { fastTimingProblems, hasCredentials, loadConfig, type Config, type Env } from './config.ts';
import { FleetsyncError } from './errors.ts';
import { limitsFromObject, mergeLimits, parseStreams, type Limits } from './sync-options.ts';
import { firstProblems, readUserText } from './text-file.ts';
import { isValidTimeZone } from './time.ts';
import { parseWorkingHours, type WorkingHours } from './working-hours.ts';

export interface AccountConfig {
  account: string;
  baseUrl: string;
  username: string;
  password: string;
  timezone: string;
  changelogUrl: string | null;
  /** Where `timezone` was set, for the message of a run refused for a changed zone (src/sync/zone.ts). */
  zoneSetting?: string;
  /** Working hours in the account's zone (FLEETSYNC_WORKING_HOURS, or `working_hours` in the accounts file). */
  workingHours?: WorkingHours;
  /** Granted limits (FLEETSYNC_LIMITS, then the account's `limits`); none = the spec's. */
  limits?: Limits;
  /** The streams its runs pull (the account's `streams`, else FLEETSYNC_STREAMS); none = every stream. */
  streams?: readonly string[];
}

const accountSchema = z
  .object({
    account: z
      .string()
      .regex(/^[A-Za-z0-9_.@-]{1,64}$/, { error: 'letters, digits, _ . @ - only (at most 64)' }),
    country: z
      .string()
      .refine(isCountryCode, { error: (iss) => unknownCountryText(iss.input) })
      .optional(),
    base_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .refine((v) => !hasCredentials(v), {
        error: 'must not carry a user name or password: use username and password_env',
      })
      .optional(),
    username: z.string().min(1, { error: 'required' }),
    password_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'the NAME of an environment variable' }),
    timezone: z.string().refine(isValidTimeZone, { error: 'not an IANA time zone' }),
    changelog_url: z.url({ protocol: /^https?$/ }).optional(),
    working_hours: z
      .string()
      .transform((t, ctx) => {
        const r = parseWorkingHours(t);
        if (r.ok) return r.value;
        ctx.issues.push({ code: 'custom', message: r.error, input: t });
        return z.NEVER;
      })
      .optional(),
    limits: z
      .record(z.string(), z.unknown(), { error: 'an object of bucket: requests per minute' })
      .optional(),
    streams: z.union([z.string(), z.array(z.string())], { error: 'a list of stream names' }).optional(),
  })
  .strict();

const fileSchema = z
  .object({ accounts: z.array(z.unknown()).min(1, { error: 'list at least one account' }) })
  .strict();

export function loadAccounts(
  env: Env,
  config: Readonly<Config> = loadConfig(env, { needApi: true }),
): AccountConfig[] {
  const path = config.accountsFile;
  if (!path) {
    return [
      {
        account: config.account,
        baseUrl: config.baseUrl!,
        username: config.username!,
        password: config.password!,
        timezone: config.timezone,
        changelogUrl: config.changelogUrl,
        ...(config.workingHours ? { workingHours: config.workingHours } : {}),
        ...(config.limits ? { limits: config.limits } : {}),
        ...(config.streams ? { streams: config.streams } : {}),
        zoneSetting:
          config.timezoneSource === 'default'
            ? 'FLEET_TIMEZONE (not set, so the default applies)'
            : 'FLEET_TIMEZONE',
      },
    ];
  }
  const problems: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(readUserText(path));
  } catch (e) {
    throw new FleetsyncError(
      'E_CONFIG',
      `FLEETSYNC_CONFIG: cannot read ${path} as JSON (${(e as Error).message})`,
      { cause: e },
    );
  }
  const file = fileSchema.safeParse(raw);
  if (!file.success) {
    throw new FleetsyncError(
      'E_CONFIG',
      `invalid configuration:\n  - ${firstProblems(file.error.issues.map((i) => `FLEETSYNC_CONFIG ${i.path.join('.') || '(file)'}: ${i.message}`)).join('\n  - ')}`,
    );
  }
  const out: AccountConfig[] = [];
  const seen = new Set<string>();
  file.data.accounts.forEach((item, i) => {
    const where = `FLEETSYNC_CONFIG accounts[${i}]`;
    if (item && typeof item === 'object' && 'password' in item) {
      problems.push(
        `${where}.password: passwords never go in the file; name an environment variable in password_env`,
      );
      return;
    }
    const a = accountSchema.safeParse(item);
    if (!a.success) {
      for (const issue of a.error.issues)
        problems.push(`${where}.${issue.path.join('.') || '(account)'}: ${issue.message}`);
      return;
    }
    const v = a.data;
    if (seen.has(v.account)) problems.push(`${where}.account: ${v.account} is listed twice`);
    seen.add(v.account);
    if (!v.country && !v.base_url) problems.push(`${where}: set country or base_url`);
    const password = env[v.password_env];
    if (!password)
      problems.push(`${where}.password_env: the environment variable ${v.password_env} is not set`);
    if (problems.length) return;
    const own = v.limits ? limitsFromObject(v.limits, `${where}.limits`) : null;
    if (own && !own.ok) problems.push(...own.errors);
    const streams = v.streams === undefined ? null : parseStreams(v.streams, `${where}.streams`);
    if (streams && !streams.ok) problems.push(...streams.errors);
    if (problems.length) return;
    const limits = mergeLimits(config.limits, own?.ok ? own.value : undefined);
    const chosen = streams?.ok ? streams.value : config.streams;
    const baseUrl = v.base_url ? v.base_url.replace(/\/+$/, '') : baseUrlForCountry(v.country!);
    problems.push(...fastTimingProblems(config, baseUrl, ` (account ${v.account})`));
    if (problems.length) return;
    out.push({
      account: v.account,
      baseUrl,
      username: v.username,
      password: password!,
      timezone: v.timezone,
      changelogUrl: v.changelog_url ?? null,
      zoneSetting: `the timezone of account ${v.account} in FLEETSYNC_CONFIG`,
      ...(limits ? { limits } : {}),
      ...(chosen ? { streams: chosen } : {}),
      ...((v.working_hours ?? config.workingHours)
        ? { workingHours: (v.working_hours ?? config.workingHours)! }
        : {}),
    });
  });
  if (problems.length)
    throw new FleetsyncError(
      'E_CONFIG',
      `invalid configuration:\n  - ${firstProblems(problems).join('\n  - ')}`,
      {
        details: { problems },
      },
    );
  return out;
}

/** Accounts chosen by `--account` (all when absent); an unknown name is a usage error. */
export function selectAccounts(all: AccountConfig[], name: string | undefined): AccountConfig[] {
  if (name === undefined) return all;
  const hit = all.filter((a) => a.account === name);
  if (!hit.length)
    throw new FleetsyncError(
      'E_USAGE',
      `--account ${JSON.stringify(name)} is not configured; accounts: ${all.map((a) => a.account).join(', ')}`,
    );
  return hit;
}
