/**
 * `fleetsync simulate`: the simulated Fleet API alone, on a deterministic fleet, until stopped.
 * Prints the base URL, the username and the variables that point a sync at it; the passwords are
 * the documented defaults and are never printed.
 */
import { FleetsyncError } from '../errors.ts';
import { isCalendarDay, isValidTimeZone } from '../time.ts';
import { PAGE_FAULT_KINDS, type PageFault, type PageFaultKind } from '../simulator/page-faults.ts';
import type { Command } from './command.ts';

const USAGE =
  'fleetsync simulate [--port N] [--seed N] [--vehicles N] [--days N] [--timezone ZONE] [--end-day YYYY-MM-DD] [--window-ms N] [--page-fault KIND[:PAGE][@PATH]] [--page-limit N] [--missing "GET /path,…"] [--subuser-forbidden "GET /path,…"]';

/**
 * `--missing "GET /vehicles/activity"` (a module the account lacks: 404 to everyone) and
 * `--subuser-forbidden "GET /drivers,GET /carpool/vehicles"` (403 to the subuser's password): a
 * list of the sync's endpoint templates, so a person can see a refused read without writing code.
 */
function endpointsOption(raw: unknown, name: string, known: readonly string[]): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = typeof raw === 'string' ? raw.split(',').map((e) => e.trim().replace(/\s+/g, ' ')) : [];
  const bad = list.filter((e) => !known.includes(e));
  if (!list.length || bad.length)
    throw new FleetsyncError(
      'E_USAGE',
      `--${name} must be a comma-separated list of the sync's endpoints, e.g. "GET /drivers,GET /vehicles/activity" ` +
        `(not one: ${JSON.stringify(bad.length ? bad.join(',') : raw)}); they are: ${known.join(', ')}`,
    );
  return list;
}

/**
 * `--page-fault short:2@/trips`: a page that does not add up (src/simulator/page-faults.ts), page 2
 * by default, every paged answer unless a route path is given.
 */
function pageFaultOption(raw: unknown): PageFault | undefined {
  if (raw === undefined) return undefined;
  const m = typeof raw === 'string' ? /^([a-z_]+)(?::(\d+))?(?:@(\/\S*))?$/.exec(raw) : null;
  const kind = m?.[1] as PageFaultKind | undefined;
  if (!m || !kind || !PAGE_FAULT_KINDS.includes(kind) || (m[2] !== undefined && Number(m[2]) < 2))
    throw new FleetsyncError(
      'E_USAGE',
      `--page-fault must be KIND[:PAGE][@PATH] with KIND one of ${PAGE_FAULT_KINDS.join(', ')} and PAGE 2 or more, e.g. short:2@/trips (got ${JSON.stringify(raw)})`,
    );
  return { kind, ...(m[2] ? { page: Number(m[2]) } : {}), ...(m[3] ? { path: m[3] } : {}) };
}

function intOption(
  values: Record<string, unknown>,
  name: string,
  def: number,
  min: number,
  max: number,
): number {
  const raw = values[name];
  if (raw === undefined) return def;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new FleetsyncError(
      'E_USAGE',
      `--${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`,
    );
  return n;
}

export const simulateCommand: Command = {
  summary:
    'fleetsync simulate — the simulated Fleet API alone (deterministic fleet, real paths, auth and limits)',
  usage: USAGE,
  options: {
    port: { type: 'string' },
    seed: { type: 'string' },
    vehicles: { type: 'string' },
    days: { type: 'string' },
    timezone: { type: 'string' },
    'end-day': { type: 'string' },
    'window-ms': { type: 'string' },
    'page-fault': { type: 'string' },
    'page-limit': { type: 'string' },
    missing: { type: 'string' },
    'subuser-forbidden': { type: 'string' },
  },
  run: async ({ values, positionals }, ctx) => {
    if (positionals.length)
      throw new FleetsyncError(
        'E_USAGE',
        `unexpected argument ${JSON.stringify(positionals[0])}\nusage: ${USAGE}`,
      );
    const port = intOption(values, 'port', 4010, 0, 65535);
    const seed = intOption(values, 'seed', 1, 0, 2 ** 31 - 1);
    const vehicles = intOption(values, 'vehicles', 20, 1, 5000);
    const days = intOption(values, 'days', 90, 1, 3660);
    const windowMs = intOption(values, 'window-ms', 60_000, 1, 3_600_000);
    const pageFault = pageFaultOption(values['page-fault']);
    const pageLimit =
      values['page-limit'] === undefined ? undefined : intOption(values, 'page-limit', 500, 1, 500);
    const timezone = typeof values.timezone === 'string' ? values.timezone : 'Australia/Sydney';
    if (!isValidTimeZone(timezone))
      throw new FleetsyncError(
        'E_USAGE',
        `--timezone must be an IANA time zone such as Australia/Sydney (got ${JSON.stringify(timezone)})`,
      );
    const endDayRaw = values['end-day'];
    if (endDayRaw !== undefined && (typeof endDayRaw !== 'string' || !isCalendarDay(endDayRaw)))
      throw new FleetsyncError(
        'E_USAGE',
        `--end-day must be a calendar day YYYY-MM-DD (got ${JSON.stringify(endDayRaw)})`,
      );

    const { generateFleet } = await import('../simulator/generate.ts');
    const { startSimulator, DEFAULT_CREDENTIALS, SYNC_ROUTES } = await import('../simulator/server.ts');
    const endpoints = SYNC_ROUTES.filter((r) => r.method === 'GET' || r.method === 'POST').map(
      (r) => `${r.method} ${r.path}`,
    );
    const missing = endpointsOption(values.missing, 'missing', endpoints);
    const forbidden = endpointsOption(values['subuser-forbidden'], 'subuser-forbidden', endpoints);
    const fleet = generateFleet({
      seed,
      vehicles,
      days,
      timezone,
      ...(typeof endDayRaw === 'string' ? { endDay: endDayRaw } : {}),
    });
    const faults = { ...(pageFault ? { pageFault } : {}), ...(pageLimit ? { pageLimit } : {}) };
    const access = { ...(missing ? { missing } : {}), ...(forbidden ? { subuser: { forbidden } } : {}) };
    const sim = await startSimulator({ fleet, port, windowMs, faults, access });
    ctx.stdout(
      [
        `Fleet API simulator listening: ${sim.baseUrl}`,
        `  username: ${DEFAULT_CREDENTIALS.username} (main and subuser passwords: the documented defaults, docs/simulator.md)`,
        `  sync it with: FLEET_BASE_URL=${sim.baseUrl} FLEET_USERNAME=${DEFAULT_CREDENTIALS.username} FLEET_PASSWORD=… ` +
          `FLEET_TIMEZONE=${fleet.timezone}${windowMs === 60_000 ? '' : ` FLEETSYNC_RATE_WINDOW_MS=${windowMs}`}`,
        `  fleet: seed ${seed}, ${fleet.vehicles.length} vehicles, ${days} days ending ${fleet.options.endDay}, zone ${fleet.timezone}`,
        `  stats: ${sim.url}/__sim/stats`,
        ...(pageFault
          ? [
              `  page fault: ${pageFault.kind} on page ${pageFault.page ?? 2} of ${pageFault.path ?? 'every paged answer'}${pageLimit ? `, ${pageLimit} records a page` : ''}`,
            ]
          : []),
        ...(missing ? [`  missing on this account (404): ${missing.join(', ')}`] : []),
        ...(forbidden ? [`  refused to the subuser (403): ${forbidden.join(', ')}`] : []),
        'Stop with Ctrl-C.',
        '',
      ].join('\n'),
    );
    if (!ctx.stopSignal.aborted)
      await new Promise<void>((resolve) =>
        ctx.stopSignal.addEventListener('abort', () => resolve(), { once: true }),
      );
    await sim.close();
    ctx.stdout('simulator stopped\n');
  },
};
