/**
 * The daily facts (issue 29; queries/schema/088_daily_facts.sql, queries/models/daily_facts.sql):
 * kept by the writer that commits a window, in its transaction, and rebuilt whole for an account
 * (`fleetsync sync --rebuild-facts`, a re-zone, the upgrade that adds the table). The figures are the
 * model layer's; this module only says which local days and vehicles to compute again.
 */
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { prepareModelConnection } from './models.ts';
import { execute, queryJs } from './queries.ts';
import { addDays, DAY_MS, lastDayOfMonth, localDate } from '../time.ts';

/** The ledger streams whose commits keep facts (daily_facts_streams() in the model). */
export const FACT_STREAMS: ReadonlySet<string> = new Set([
  'odometer',
  'fuel_consumed',
  'fuel_level',
  'trips',
  'visits',
  'activity',
]);

/** The model queries of a commit's refresh (the macros a writer's connection defines: models.ts). */
const REFRESH_COVERAGE = ['sync/coverage_facts_insert'];
const REFRESH = [...REFRESH_COVERAGE, 'sync/facts_insert', 'sync/trip_facts_insert'];
const REFRESH_STREAMS = [
  'sync/coverage_facts_insert_streams',
  'sync/facts_insert_streams',
  'sync/trip_facts_insert',
];
const REBUILD = [
  ...REFRESH,
  'sync/trip_facts_clear',
  'sync/facts_span',
  'sync/coverage_facts_span',
  'sync/facts_clear',
  'sync/facts_count',
];

/** Instants a commit replaced rows in, for one vehicle or (null) the whole fleet. */
export interface FactsRange {
  vehicleId: number | null;
  startMs: number;
  endMs: number;
}

/**
 * Computes again, for a commit of `stream`'s windows, the day's coverage (every ledger stream:
 * day_coverage, the whole local months the ranges touch) and the facts (the fact-bearing streams:
 * daily_facts, the local days the ranges touch), for their vehicles (every vehicle when one range
 * is the fleet's): the stored rows of those days are deleted and the model's inserted, so a window
 * pulled again replaces its facts, never adds to them. One span per call (the days between the
 * ranges are computed again too: the same figures, at little cost). Runs inside the caller's
 * transaction.
 */
export async function refreshFacts(
  con: DuckDBConnection,
  x: {
    account: string;
    zone: string;
    stream: string;
    ranges: readonly FactsRange[];
    /** storedTripsReach of the ranges before the commit deleted their trips (null: not read) */
    replacedReachMs?: number | null;
  },
): Promise<void> {
  if (x.ranges.length === 0) return;
  const span = spanOf(x.ranges);
  let { from, to } = span;
  let vehicles: Set<number> | null = new Set();
  for (const r of x.ranges) {
    if (r.vehicleId === null) vehicles = null;
    else vehicles?.add(r.vehicleId);
  }
  if (!(to > from)) return;
  await prepareModelConnection(con, FACT_STREAMS.has(x.stream) ? REFRESH : REFRESH_COVERAGE);
  if (x.stream === 'trips') ({ from, to } = await tripsSpan(con, x.account, from, to, x.replacedReachMs));
  const days = [localDate(from, x.zone), localDate(to - 1, x.zone)] as const;
  const ids = vehicles === null ? null : [...vehicles];
  const scopes = ids === null ? null : listValue(ids.map(String));
  await execute(con, 'sync/coverage_facts_delete', [x.account, x.stream, ...days, scopes]);
  await execute(con, 'sync/coverage_facts_insert', [x.account, x.zone, x.stream, ...days, scopes]);
  if (!FACT_STREAMS.has(x.stream)) return;
  const list = ids === null ? null : listValue(ids.map((v) => BigInt(v)));
  await execute(con, 'sync/facts_delete', [x.account, x.stream, ...days, list]);
  await execute(con, 'sync/facts_insert', [x.account, x.zone, x.stream, ...days, list]);
  // the trips' day facts per driver (trip_day_facts: scorecards, logbook) of the same days
  if (x.stream === 'trips') await refreshTripDayFacts(con, x.account, x.zone, days, list);
}

/** The trips' day facts per driver (trip_day_facts: scorecards, logbook) of the days [first, last]. */
async function refreshTripDayFacts(
  con: DuckDBConnection,
  account: string,
  zone: string,
  days: readonly [string, string],
  list: ReturnType<typeof listValue> | null,
): Promise<void> {
  await execute(con, 'sync/trip_facts_delete', [account, ...days, list]);
  await execute(con, 'sync/trip_facts_insert', [account, zone, ...days, list]);
}

/**
 * refreshFacts for a commit that replaced windows of several ledger streams (a small run's one
 * writer, src/sync/executor.ts), in one delete and one insert for the coverage and one each for
 * the facts instead of those per stream: the days and vehicles computed again are those of every
 * stream's ranges together (more than each stream needs: the same figures, as refreshFacts's days
 * between its ranges), and the model computes the fact streams together (daily_facts_of with
 * every stream), keeping those of the commit's streams.
 */
export async function refreshFactsOfStreams(
  con: DuckDBConnection,
  x: {
    account: string;
    zone: string;
    ranges: ReadonlyMap<string, readonly FactsRange[]>;
    replacedReachMs?: number | null;
  },
): Promise<void> {
  const all = [...x.ranges.values()].flat();
  if (all.length === 0) return;
  let { from, to } = spanOf(all);
  if (!(to > from)) return;
  const ids = all.some((r) => r.vehicleId === null) ? null : [...new Set(all.map((r) => r.vehicleId!))];
  const streams = [...x.ranges.keys()].filter((s) => x.ranges.get(s)!.length > 0);
  const facts = streams.filter((s) => FACT_STREAMS.has(s));
  await prepareModelConnection(con, REFRESH_STREAMS);
  if (facts.includes('trips')) ({ from, to } = await tripsSpan(con, x.account, from, to, x.replacedReachMs));
  const days = [localDate(from, x.zone), localDate(to - 1, x.zone)] as const;
  const scopes = ids === null ? null : listValue(ids.map(String));
  await execute(con, 'sync/coverage_facts_delete_streams', [x.account, listValue(streams), ...days, scopes]);
  await execute(con, 'sync/coverage_facts_insert_streams', [
    x.account,
    x.zone,
    listValue(streams),
    ...days,
    scopes,
  ]);
  if (facts.length === 0) return;
  const list = ids === null ? null : listValue(ids.map((v) => BigInt(v)));
  await execute(con, 'sync/facts_delete_streams', [x.account, listValue(facts), ...days, list]);
  await execute(con, 'sync/facts_insert_streams', [x.account, x.zone, listValue(facts), ...days, list]);
  if (facts.includes('trips')) await refreshTripDayFacts(con, x.account, x.zone, days, list);
}

/** The instants [from, to) the ranges span. */
function spanOf(ranges: readonly FactsRange[]): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const r of ranges) {
    from = Math.min(from, r.startMs);
    to = Math.max(to, r.endMs);
  }
  return { from, to };
}

/**
 * The reach (tripsReach) of the stored trips a commit is about to replace, read before its
 * deletes: a trip pulled again shorter (by more than a day) leaves after-hours on days its new
 * version no longer reaches, which refreshFacts then computes again too.
 */
export async function storedTripsReach(
  con: DuckDBConnection,
  account: string,
  ranges: readonly FactsRange[],
): Promise<number | null> {
  const { from, to } = spanOf(ranges);
  return to > from ? tripsReach(con, account, from, to) : null;
}

/**
 * The instants a commit of trips over [from, to) changes facts in: a trip's after-hours count on
 * the days it runs into, so those after the range (and one more, for a trip pulled again shorter:
 * `replacedReachMs`, storedTripsReach) are computed again too; and the API answers a window with
 * the trips that run into it whole, stored with the rest, so the days the first of those that
 * started before it starts on are computed again too. Both from one statement
 * (facts_trips_span.sql).
 */
async function tripsSpan(
  con: DuckDBConnection,
  account: string,
  from: number,
  to: number,
  replacedReachMs: number | null | undefined,
): Promise<{ from: number; to: number }> {
  const [r] = await queryJs(con, 'sync/facts_trips_span', [
    account,
    new Date(from).toISOString(),
    new Date(to).toISOString(),
  ]);
  const first = r?.first_start as Date | null | undefined;
  return {
    from: Math.min(from, first?.getTime() ?? from),
    to: Math.max(reachEnd(to, r?.reach), replacedReachMs ?? to),
  };
}

/** The end of the instants [from, to) a commit of trips changes facts in: see refreshFacts. */
async function tripsReach(con: DuckDBConnection, account: string, from: number, to: number): Promise<number> {
  const [r] = await queryJs(con, 'sync/facts_trips_reach', [
    account,
    new Date(from).toISOString(),
    new Date(to).toISOString(),
  ]);
  return reachEnd(to, r?.reach);
}

/** A day past the later of `to` and the trips' latest end (`reach`, a Date or null). */
const reachEnd = (to: number, reach: unknown): number =>
  Math.max(to, (reach as Date | null | undefined)?.getTime() ?? to) + DAY_MS;

/** The local days [first, last] a span query answers (first_start, last_end), or null. */
async function spanDays(
  con: DuckDBConnection,
  query: string,
  params: string[],
  zone: string,
): Promise<[string, string] | null> {
  const [span] = await queryJs(con, query, params);
  const first = span?.first_start as Date | null | undefined;
  const last = span?.last_end as Date | null | undefined;
  if (!first || !last) return null;
  return [localDate(first.getTime(), zone), localDate(last.getTime(), zone)];
}

/**
 * Computes every fact of an account again in `zone` (its recorded zone): all stored facts of the
 * account (of `stream` only, when given) deleted, then those of every local day its rows span
 * inserted; without `stream`, the day's coverage too (every day its ledger windows span). Runs inside the caller's transaction. Returns the account's fact rows stored.
 */
export async function rebuildFacts(
  con: DuckDBConnection,
  account: string,
  zone: string,
  stream: string | null = null,
): Promise<number> {
  await prepareModelConnection(con, REBUILD);
  await execute(con, 'sync/facts_clear', [account, stream]);
  const days = await spanDays(con, 'sync/facts_span', [account, zone], zone);
  if (days) await execute(con, 'sync/facts_insert', [account, zone, stream, ...days, null]);
  if (stream === null || stream === 'trips') await rebuildTripDayFacts(con, account, zone, days);
  if (stream === null) {
    await execute(con, 'sync/coverage_facts_clear', [account]);
    const led = await spanDays(con, 'sync/coverage_facts_span', [account], zone);
    for (const m of led ? monthsOf(led) : [])
      await execute(con, 'sync/coverage_facts_insert', [account, zone, null, ...m, null]);
  }
  const [n] = await queryJs(con, 'sync/facts_count', [account]);
  return Number(n?.n ?? 0);
}

/**
 * Computes an account's trips' day facts per driver (trip_day_facts) again in `zone`, over the local
 * days `days` (default: every day its fact-bearing rows span), inside the caller's transaction: what
 * the upgrade that adds the table runs (src/store/db.ts), and part of every trips rebuild.
 */
export async function rebuildTripDayFacts(
  con: DuckDBConnection,
  account: string,
  zone: string,
  days?: [string, string] | null,
): Promise<void> {
  await prepareModelConnection(con, REBUILD);
  await execute(con, 'sync/trip_facts_clear', [account]);
  const span = days === undefined ? await spanDays(con, 'sync/facts_span', [account, zone], zone) : days;
  for (const m of span ? monthsOf(span) : [])
    await execute(con, 'sync/trip_facts_insert', [account, zone, ...m, null]);
}

/**
 * The days [first, last] cut at the calendar months: a rebuild inserts the trips' day facts and the
 * coverage one month at a time, so a month's rows are stored together and the months in order (a
 * report's range of days then skips the row groups outside it:
 * queries/schema/041_facts_in_day_order.sql). One insert of every day stored them in its
 * grouping's hash order, each row group holding every day. The rows are the same: each day's are
 * computed from that day's trips or windows alone.
 */
export function monthsOf([first, last]: readonly [string, string]): [string, string][] {
  const out: [string, string][] = [];
  for (let from = first; from <= last;) {
    const end = lastDayOfMonth(from.slice(0, 7));
    out.push([from, end < last ? end : last]);
    from = addDays(end, 1);
  }
  return out;
}

/**
 * Runs `write` (the geofences snapshot's upsert, inside its transaction) and, when it changed
 * which geofences are toll geofences, computes the account's toll-passage facts again: a passage
 * is a toll passage by its geofence as last synced (toll_passages.sql), so a geofence that became
 * (or stopped being) a toll geofence changes the counts of days already stored.
 */
export async function keepingTollFacts<T>(
  con: DuckDBConnection,
  account: string,
  write: () => Promise<T>,
): Promise<T> {
  return recomputingWhenChanged(con, 'sync/facts_toll_geofences', account, write, () =>
    refreshTollChargeFacts(con, account),
  );
}

/**
 * Runs `write` (the sync's record of the account's working hours, inside its transaction) and,
 * when it changed the working hours in effect, computes the account's trips facts again in `zone`:
 * their after-hours rest on the working hours (trip_after_hours), so new hours change days already
 * stored.
 */
export async function keepingAfterHoursFacts(
  con: DuckDBConnection,
  account: string,
  zone: string,
  write: () => Promise<unknown>,
): Promise<void> {
  await recomputingWhenChanged(con, 'sync/working_hours_in_effect', account, write, () =>
    rebuildFacts(con, account, zone, 'trips'),
  );
}

/**
 * `write`, then `recompute` when the one value `query` answers for the account changed across it
 * (only that query's macro is defined first: the facts' models are defined when they are needed).
 */
async function recomputingWhenChanged<T>(
  con: DuckDBConnection,
  query: string,
  account: string,
  write: () => Promise<T>,
  recompute: () => Promise<unknown>,
): Promise<T> {
  await prepareModelConnection(con, [query]);
  const value = async () => String(Object.values((await queryJs(con, query, [account]))[0] ?? {})[0]);
  const before = await value();
  const out = await write();
  if ((await value()) !== before) await recompute();
  return out;
}

/**
 * Computes the account's toll-passage facts again (inside the caller's transaction): their
 * charges rest on the stored prices (tariffs, vehicle classes), so storing a prices file calls
 * this. An account without a recorded zone (never synced) has no facts.
 */
export async function refreshTollChargeFacts(con: DuckDBConnection, account: string): Promise<void> {
  // rebuildFacts defines the models it calls (not every report macro: ~100 statements, ~40 ms of
  // CPU on a sync's first run, whose geofences snapshot comes here). Without a visit or a visits
  // fact stored (that first run) it would delete and insert nothing: not run, nor its ~30 macros.
  const [z] = await queryJs(con, 'sync/account_zone', [account]);
  if (typeof z?.timezone !== 'string') return;
  const [any] = await queryJs(con, 'sync/facts_visits_any', [account]);
  if (any?.any === true) await rebuildFacts(con, account, z.timezone, 'visits');
}

/** Every account of the file that has a recorded zone, with it. */
export async function accountZones(con: DuckDBConnection): Promise<{ account: string; zone: string }[]> {
  return (await queryJs(con, 'sync/facts_accounts')).map((r) => ({
    account: String(r.account),
    zone: String(r.timezone),
  }));
}
