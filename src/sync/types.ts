/**
 * The sync's public shapes: what a run needs, what it is asked to do and what it reports.
 * `runSync` in src/sync/run.ts implements them; the CLI, the server's POST /api/sync and the
 * scheduler call it (with SyncDeps built by src/wiring.ts).
 */
import type { WorkingHours } from '../working-hours.ts';
import type { BucketName, FleetClient } from '../api/client.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import type { Clock } from '../time.ts';
import type { WindowStatus } from './ledger.ts';
import type { SiteSelection } from '../sites.ts';
import type { FillsPath, StreamDefinition } from './stream.ts';
import type { AccessState } from '../api/access.ts';
import type { AccessChange } from './access.ts';
import type { Unit } from './unit.ts';

export interface SyncDeps {
  db: Database;
  client: FleetClient;
  account: string;
  timezone: string;
  /** Where `timezone` was set (FLEET_TIMEZONE, the default, an accounts file), named when the zone is refused. */
  zoneSetting?: string;
  /** The account's working hours, recorded at each run for the utilisation reports (default Mon-Fri 07:00-18:00). */
  workingHours?: WorkingHours;
  baseUrl: string;
  /** The API's rate-limit window (ms); used for the plan's least duration. */
  windowMs: number;
  limits?: Partial<Record<BucketName, number>>;
  log: Logger;
  now: Clock;
  signal?: AbortSignal;
  /** Look-back for late data (default SETTLE_MS, src/defaults.ts). */
  settleMs?: number;
  /** Stale-looking windows are accepted this long after their end (default MAX_LATE_MS). */
  maxLateMs?: number;
  /** Odometer windows whose last event is this far before their end are incomplete (default ODOMETER_LAG_MS). */
  odometerLagMs?: number;
  /** Records a fleet-wide paged window may hold at once (default MAX_WINDOW_RECORDS, src/defaults.ts). */
  maxWindowRecords?: number;
  /** What a stream's writer may have waiting (bytes, estimated) before the stream fetches more (default MAX_WRITE_BACKLOG_BYTES). */
  maxWriteBacklogBytes?: number;
  /** Units up to which a run's streams share one writer connection (default SHARED_WRITER_MAX_UNITS). */
  sharedWriterMaxUnits?: number;
  /** Units of work in flight at once (default DEFAULT_CONCURRENCY); the buckets pace the requests. */
  concurrency?: number;
  fuelPath?: 'per_vehicle_get' | 'bulk_post';
  /** Force how fuel fills are read (tests); default: per local month, whichever sends fewer requests. */
  fillsPath?: FillsPath;
  /** The non-toll geofences whose visits are kept (FLEETSYNC_SITES, src/sync/sites.ts); default every one. */
  sites?: SiteSelection;
  onProgress?: (p: SyncProgress) => void;
  /** The release-notes records URL (default: derived from baseUrl); `false` skips the check beside the sync. */
  changelogUrl?: string | false;
  /** The streams a run knows (default: the built-in registry); a declared stream is added here. */
  streams?: readonly StreamDefinition[];
  /** Test hook: called after each committed window (e.g. to kill the process at a chosen point). */
  afterCommit?: (unit: Unit) => void;
}

export interface SyncRequest {
  /** Local calendar days, both inclusive; omitted = incremental (gaps since coverage + look-back). */
  fromDay?: string;
  toDay?: string;
  /** Stream names (default: every stream the run knows). */
  streams?: readonly string[];
  trigger: 'cli' | 'schedule' | 'api' | 'demo';
  /** Print the plan only: nothing is sent. */
  planOnly?: boolean;
}

/** What `sync --rezone` did (src/sync/rezone.ts). */
export interface RezoneSummary {
  account: string;
  fromZone: string;
  toZone: string;
  fromDay: string;
  toDay: string;
  /** 'applied': the account's windows now follow toZone; 'not_applied': the re-pull had failures (main data untouched). */
  status: 'applied' | 'not_applied' | 'unchanged';
  /** Rows replaced per table (applied only). */
  tables: Record<string, { before: number; after: number }>;
  run: RunSummary | null;
}

export interface StreamCounts {
  windows: Partial<Record<WindowStatus, number>>;
  rows: number;
  requests: number;
}

export interface RunSummary {
  run_id: string;
  account: string;
  outcome: 'ok' | 'partial' | 'failed';
  started_ms: number;
  ended_ms: number;
  requests: number;
  retries: number;
  http429ByBucket: Record<string, number>;
  /** This run's requests and retries per rate bucket (the runs row keeps them; /metrics shows them). */
  requestsByBucket?: Record<string, number>;
  retriesByBucket?: Record<string, number>;
  streams: Record<string, StreamCounts>;
  /** The API's release notes, checked beside the sync after the run (never fails the run). */
  apiChanges?: {
    status: string;
    newReleases: number;
    flagged: { version: string; kind: string; endpoints: string[]; text: string }[];
  };
  /**
   * Why the run as a whole failed or was cut short (refused credentials, the API down, the
   * storage, an interruption); also the first of `errors`. Absent when windows alone failed.
   */
  reason?: string;
  /** The account's zone: the printed summary shows failed windows' times in it, as `status` does. */
  zone?: string;
  /** First few failures: stream, scope, window (its UTC instants, `windowLabel`), reason. */
  errors: { stream: string; scope: string; window: string; reason: string }[];
  /**
   * Streams left out of this run because an endpoint they need is not permitted for these
   * credentials (403) or not available on this account (404): not failures (sync/access.ts).
   */
  skipped?: SkippedStream[];
  /** Endpoints whose state changed in this run (newly refused, or available again). */
  accessChanges?: AccessChange[];
}

export interface SkippedStream {
  stream: string;
  endpoint: string;
  state: AccessState;
  reason: string;
}

export interface PlanSummary {
  account: string;
  fromDay: string;
  toDay: string;
  requestsByBucket: Record<string, number>;
  /** Requests per rate window each bucket of the plan is held to (the spec's, or as granted). */
  limitsByBucket: Record<string, number>;
  requestsByStream: Record<string, number>;
  /** The least wall time the rate limits allow for this plan. */
  leastDurationMs: number;
  /** No vehicle is stored yet: the per-vehicle streams are not in the plan (nor in its least time). */
  vehiclesUnknown?: true;
  /** Which fuel path the planner chose and why. */
  fuelPath: { chosen: 'per_vehicle_get' | 'bulk_post'; getMs: number; postMs: number };
  notes: string[];
}

export interface SyncProgress {
  stream: string;
  done: number;
  total: number;
}
