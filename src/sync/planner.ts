/**
 * The planner: "fill the gaps between the coverage wanted and the windows done". It resolves the
 * wanted range, then asks each declared stream (streams/*.ts, registry order) for its units: the
 * stream lays its grid over the range, drops grid windows that done/flagged ledger rows already
 * tile, and makes a unit for every other one (missing, incomplete, failed). It totals requests
 * per bucket (pages estimated from the history already stored) and the least time the rate limits
 * allow.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { leastDurationMs, type BucketName } from '../api/client.ts';
import { limitFor } from '../api/buckets.ts';
import { FIRST_RUN_DAYS, MAX_WINDOW_RECORDS, PAGE_LIMIT } from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import { queryJs } from '../store/queries.ts';
import { DAY_MS, addDays, localDate } from '../time.ts';
import { readAccess } from './access.ts';
import { isCovered, readLedgers, type LedgerRowRead } from './ledger.ts';
import type { SiteSelection } from '../sites.ts';
import {
  addRequests,
  requestsByBucket,
  type HistoryRates,
  type PlanContext,
  type PlannedVehicle,
  type FillsPath,
  type StreamDefinition,
} from './stream.ts';
import { BUILTIN_STREAMS } from './streams/index.ts';
import type { PlanSummary, SyncRequest } from './types.ts';
import type { Unit } from './unit.ts';
import { cutAt, dayRange, dayWindows, monthWindows, settledCut, type Window } from './windows.ts';

export type { PlannedVehicle } from './stream.ts';

export interface PlanInput {
  account: string;
  zone: string;
  range: Window;
  streams: ReadonlySet<string>;
  vehicles: readonly PlannedVehicle[];
  runId: string;
  windowMs: number;
  limits?: Partial<Record<BucketName, number>>;
  /** Force a fuel path (tests, benchmarks); default: whichever the limits finish sooner. */
  fuelPath?: 'per_vehicle_get' | 'bulk_post';
  /** Force the fills path (tests): every fills window per vehicle, or fleet-wide days; default: fewer requests per month. */
  fillsPath?: FillsPath;
  /** The non-toll geofences whose visits are kept (default every one). */
  sites?: SiteSelection;
  /** Windows reaching past this instant are fetched in two pieces (see settledPieces): one more request each. */
  settledBeforeMs?: number;
  /** The declared streams (default: the built-in registry). */
  definitions?: readonly StreamDefinition[];
  /** Records a fleet-wide paged window may hold at once (default MAX_WINDOW_RECORDS). */
  maxWindowRecords?: number;
}

/** The local-day range a request wants: explicit, or incremental from the ledger. */
export async function resolveRange(
  con: DuckDBConnection,
  deps: { account: string; timezone: string; now: () => number },
  req: Pick<SyncRequest, 'fromDay' | 'toDay'>,
): Promise<Window> {
  const now = deps.now();
  const today = localDate(now, deps.timezone);
  if (req.fromDay || req.toDay) {
    const from = req.fromDay ?? addDays(req.toDay ?? today, -(FIRST_RUN_DAYS - 1));
    const to = req.toDay ?? today;
    if (to < from) throw new FleetsyncError('E_USAGE', `--to ${to} is before --from ${from}`);
    return dayRange(from, to, deps.timezone);
  }
  const [first] = await queryJs(con, 'sync/coverage_start', [deps.account]);
  const start = first?.first_start as Date | null | undefined;
  const from = start ? localDate(start.getTime(), deps.timezone) : addDays(today, -(FIRST_RUN_DAYS - 1));
  return dayRange(from < today ? from : today, today, deps.timezone);
}

/** The stored vehicles the per-vehicle streams plan for. */
export async function plannedVehicles(con: DuckDBConnection, account: string): Promise<PlannedVehicle[]> {
  const rows = await queryJs(con, 'sync/planned_vehicles', [account]);
  return rows.map((r) => ({
    vehicle_id: Number(r.vehicle_id),
    registration: String(r.registration),
    fuel_canbus_consumed: Boolean(r.fuel_canbus_consumed),
    fuel_level: Boolean(r.fuel_level),
    electric: Boolean(r.electric_battery),
  }));
}

/** The streams a request asks for (default: every stream the run knows). */
export function requestedStreams(req: SyncRequest, defs: readonly StreamDefinition[]): Set<string> {
  return new Set(req.streams && req.streams.length ? req.streams : defs.map((d) => d.name));
}

/** Average records per local day seen so far, to estimate pages; defaults before the first sync. */
async function historyRates(con: DuckDBConnection, account: string, vehicles: number): Promise<HistoryRates> {
  const [r] = await queryJs(con, 'sync/history_rates', [account]);
  const num = (v: unknown, d: number) =>
    v === null || v === undefined || Number.isNaN(Number(v)) ? d : Number(v);
  return {
    tripsPerDay: num(r?.trips_per_day, Math.max(1, vehicles) * 4),
    visitsPerDay: num(r?.visits_per_day, Math.max(1, vehicles)),
    // Before the first sync: a stay at a depot or site per vehicle a day.
    siteVisitsPerDay: num(r?.site_visits_per_day, Math.max(1, vehicles)),
    bookingsPerDay: num(r?.bookings_per_day, 5),
    // Before the first sync: a fill per vehicle a day (a tank lasts days; pages are 500 fills).
    fillsPerDay: num(r?.fills_per_day, Math.max(1, vehicles)),
  };
}

export async function buildPlan(
  con: DuckDBConnection,
  p: PlanInput,
): Promise<{ units: Unit[]; summary: PlanSummary }> {
  const defs = p.definitions ?? BUILTIN_STREAMS;
  const limits = { windowMs: p.windowMs, limits: p.limits };
  // Every stream's ledger rows of a range, read once (the streams ask for theirs, most of them
  // for the plan's range); `asked`: the streams asked about (the short-window notes name them).
  const ledgers = new Map<string, Promise<Map<string, Map<string, LedgerRowRead[]>>>>();
  const asked = new Set<string>();
  const ledger = async (s: string, range: Window = p.range) => {
    const key = `${range.startMs}|${range.endMs}`;
    if (!ledgers.has(key)) ledgers.set(key, readLedgers(con, p.account, range));
    asked.add(s);
    return (await ledgers.get(key)!).get(s) ?? new Map<string, LedgerRowRead[]>();
  };
  const refused = new Set(
    (await readAccess(con, p.account)).filter((a) => a.state !== 'ok').map((a) => a.endpoint),
  );
  const cut = p.settledBeforeMs === undefined ? null : settledCut(p.settledBeforeMs, p.zone);
  const units: Unit[] = [];
  const notes: string[] = [];
  let fuelPath: PlanSummary['fuelPath'] = { chosen: 'per_vehicle_get', getMs: 0, postMs: 0 };
  const ctx: Omit<PlanContext, 'planned'> = {
    account: p.account,
    zone: p.zone,
    range: p.range,
    runId: p.runId,
    vehicles: p.vehicles,
    rates: await historyRates(con, p.account, p.vehicles.length),
    maxWindowRecords: p.maxWindowRecords ?? MAX_WINDOW_RECORDS,
    ...(p.fuelPath ? { fuelPath: p.fuelPath } : {}),
    ...(p.fillsPath ? { fillsPath: p.fillsPath } : {}),
    ...(p.sites ? { sites: p.sites } : {}),
    grid: (g, range = p.range) =>
      g === 'month'
        ? monthWindows(range.startMs, range.endMs, p.zone)
        : dayWindows(range.startMs, range.endMs, p.zone),
    ledger,
    gaps: async (s, grid, scope, range) => {
      const rows = (await ledger(s, range)).get(scope);
      return grid.filter((w) => !isCovered(w, rows));
    },
    pieces: (w) => (cut === null ? 1 : cutAt(w, cut).length),
    pages: (perDay, w) => Math.max(1, Math.ceil((perDay * ((w.endMs - w.startMs) / DAY_MS)) / PAGE_LIMIT)),
    leastDurationMs: (byBucket) => leastDurationMs(byBucket, limits),
    chooseFuelPath: (f) => {
      fuelPath = f;
    },
    note: (text) => notes.push(text),
    refused: (endpoint) => refused.has(endpoint),
  };
  for (const def of defs)
    if (def.plan && p.streams.has(def.name)) units.push(...(await def.plan({ ...ctx, planned: [...units] })));

  // Snapshots are one listing each (their pages estimated as one).
  const snapshots: Record<string, number> = { default: 0 };
  for (const def of defs)
    if (def.snapshot && p.streams.has(def.name)) {
      const b = def.buckets[0] ?? 'default';
      snapshots[b] = (snapshots[b] ?? 0) + def.snapshot.estRequests;
    }
  const byBucket = addRequests(requestsByBucket(units), snapshots);
  const byStream: Record<string, number> = {};
  for (const u of units) byStream[u.stream] = (byStream[u.stream] ?? 0) + u.estRequests;
  // The one-off check of windows an earlier run stored short (read as gaps by readLedgers).
  for (const r of await queryJs(con, 'sync/ledger_short_done', [
    p.account,
    new Date(p.range.startMs).toISOString(),
    new Date(p.range.endMs).toISOString(),
  ]))
    if (asked.has(String(r.stream)))
      notes.push(
        `${Number(r.n)} ${String(r.stream)} window(s) stored done with fewer records than the API announced: pulled again`,
      );
  const vehiclesUnknown =
    p.vehicles.length === 0 && defs.some((d) => d.scope === 'vehicle' && p.streams.has(d.name));
  if (vehiclesUnknown)
    notes.push('no vehicles known yet: per-vehicle streams are planned after the vehicle list is pulled');
  notes.push(
    'page counts are estimates from the history already stored; splits around odometer or counter resets add a few requests',
  );
  return {
    units,
    summary: {
      account: p.account,
      fromDay: localDate(p.range.startMs, p.zone),
      toDay: localDate(p.range.endMs - 1, p.zone),
      requestsByBucket: byBucket,
      limitsByBucket: Object.fromEntries(Object.keys(byBucket).map((b) => [b, limitFor(b, p.limits)])),
      requestsByStream: byStream,
      leastDurationMs: leastDurationMs(byBucket, limits),
      ...(vehiclesUnknown ? { vehiclesUnknown: true as const } : {}),
      fuelPath,
      notes,
    },
  };
}
