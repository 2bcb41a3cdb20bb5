/**
 * A stream, declared (as dlt declares a resource): what it is called, which ledger streams it
 * keeps, its window grid and scope, the endpoints and rate buckets it uses, what it writes, how it
 * plans its units of work (each unit's `fetch` talks to the API and returns its write), and — for
 * a snapshot — how it is pulled whole. The registry (streams/index.ts) lists the built-in ones;
 * STREAMS, the start order, the planner's loop and the change watch's endpoints derive from it.
 * Adding a stream is one file under streams/ plus its schema (queries/schema/) and its reports.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { BucketName, FleetClient, RequestMeter } from '../api/client.ts';
import type { LedgerRowRead } from './ledger.ts';
import type { SiteSelection } from '../sites.ts';
import type { Unit, VehicleRef } from './unit.ts';
import type { Window } from './windows.ts';

/** The calendar grid a stream's windows follow: local months, local days (≤ 24 h), or none (snapshot). */
export type Grid = 'month' | 'day' | 'none';
/** One unit per vehicle, or one for the whole fleet. */
export type Scope = 'fleet' | 'vehicle';

export interface PlannedVehicle extends VehicleRef {
  fuel_canbus_consumed: boolean;
  fuel_level: boolean; // canbus or analog level sensor
  /** A battery-electric vehicle (the API's `electric_battery`): the EV energy stream asks for it. */
  electric?: boolean;
}

/** Records per local day in the history already stored (estimates page counts). */
export interface HistoryRates {
  tripsPerDay: number;
  visitsPerDay: number;
  /** Visits of the non-toll geofences (site_visits) per local day. */
  siteVisitsPerDay: number;
  bookingsPerDay: number;
  /** Fuel fills of the whole fleet per local day. */
  fillsPerDay: number;
}

/** How fuel fills are read: GET /fuel/fills/{registration} per vehicle-month, or GET /fuel/fills per fleet day. */
export type FillsPath = 'per_vehicle' | 'fleet_day';

/** What a stream's planner sees: the wanted range, the vehicles, the ledger and the limits. */
export interface PlanContext {
  account: string;
  zone: string;
  /** The wanted range (local days). */
  range: Window;
  runId: string;
  vehicles: readonly PlannedVehicle[];
  rates: HistoryRates;
  /** Records a fleet-wide paged window may hold at once (MAX_WINDOW_RECORDS): larger windows are planned in pieces. */
  maxWindowRecords: number;
  /** Units planned so far by the streams before this one (registry order). */
  planned: readonly Unit[];
  /** Force a fuel path (tests, benchmarks); default: whichever the limits finish sooner. */
  fuelPath?: 'per_vehicle_get' | 'bulk_post';
  /** Force the fills path (tests); default: per local month, whichever sends fewer requests. */
  fillsPath?: FillsPath;
  /** The non-toll geofences whose visits are kept (FLEETSYNC_SITES; default every one). */
  sites?: SiteSelection;
  /** The grid's windows over `range` (default: the wanted range), clipped to it. */
  grid(grid: 'month' | 'day', range?: Window): Window[];
  /** Ledger rows of a ledger stream overlapping `range` (default: the wanted range), by scope. */
  ledger(ledgerStream: string, range?: Window): Promise<Map<string, LedgerRowRead[]>>;
  /** The windows of `grid` that done/flagged ledger windows of `scope` do not yet tile. */
  gaps(ledgerStream: string, grid: readonly Window[], scope: string, range?: Window): Promise<Window[]>;
  /** Requests a window reaching into the look-back costs (it is fetched in settled pieces). */
  pieces(w: Window): number;
  /** Pages `recordsPerDay` over `w` fills. */
  pages(recordsPerDay: number, w: Window): number;
  /** The least wall time the rate limits allow for requests per bucket. */
  leastDurationMs(requestsByBucket: Record<string, number>): number;
  /** Whether an earlier run recorded `endpoint` (`METHOD /path`) refused for the account (sync/access.ts). */
  refused(endpoint: string): boolean;
  /** A line for the plan's notes. */
  note(text: string): void;
  /** The fuel stream reports which counter path it chose, and what each would take (PlanSummary.fuelPath). */
  chooseFuelPath(f: { chosen: 'per_vehicle_get' | 'bulk_post'; getMs: number; postMs: number }): void;
}

/** What a snapshot pull gets: the client, the database and the run's clock reading. */
export interface SnapshotContext {
  client: FleetClient;
  con: DuckDBConnection;
  account: string;
  nowMs: number;
  meter: RequestMeter;
  signal?: AbortSignal;
}

export interface StreamDefinition<Name extends string = string> {
  /** The name `--streams` takes and the run summary counts under. */
  name: Name;
  /** Ledger stream names its windows are recorded under (none for a snapshot). */
  ledgerStreams: readonly string[];
  grid: Grid;
  scope: Scope;
  /** The API endpoints it calls (`METHOD /path`, templates as in the API docs): the change watch protects these. */
  endpoints: readonly string[];
  buckets: readonly BucketName[];
  /**
   * Endpoints of `endpoints` the stream reads another way when the account refuses them (403, or
   * 404 on a collection): their refusal is recorded and alerted, but does not skip the stream.
   */
  fallbackEndpoints?: readonly string[];
  /** The tables it writes. */
  tables: readonly string[];
  /**
   * Where its units start (lower first): longest request chains first (list scheduling by
   * critical path). Paged fleet-wide windows cost the API most per request and must start while
   * the first limit window has room; one-request per-vehicle units fill in behind them.
   */
  startOrder: number;
  /** Units in flight at once on a limiter of their own (instead of the shared pool). */
  maxInFlight?: number;
  /** Snapshot streams pulled before planning whenever this stream is asked for. */
  needs?: readonly string[];
  /** A snapshot: pulled whole before the plan; returns the rows stored. */
  snapshot?: { estRequests: number; pull(ctx: SnapshotContext): Promise<number> };
  /** A windowed stream: the units of work that fill its gaps. */
  plan?(ctx: PlanContext): Promise<Unit[]>;
}

/** Declares a stream (keeps its name's literal type for the registry's StreamName). */
export const defineStream = <Name extends string>(d: StreamDefinition<Name>): StreamDefinition<Name> => d;

/** Estimated requests per bucket of some units. */
export function requestsByBucket(units: readonly Unit[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const u of units) out[u.bucket] = (out[u.bucket] ?? 0) + u.estRequests;
  return out;
}

/** The sum of two requests-per-bucket tables. */
export function addRequests(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Formats a duration for the plan and the run summary. */
export function fmt(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
