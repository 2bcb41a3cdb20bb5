/**
 * The sync's public shapes: what a run is asked to do and what it reports. `runSync` in
 * src/sync/run.ts implements them; the CLI, the server's POST /api/sync and the scheduler call it.
 */
export const STREAMS = [
  'vehicles', // vehicles (+ sensors), snapshot
  'geofences', // geofences, snapshot
  'carpool', // carpool vehicles, drivers and rules, snapshot
  'trips', // fleet-wide, ≤31-day windows
  'odometer', // per vehicle, local-month windows, split around resets / tracker changes
  'fuel', // per vehicle: ECU counter (CAN) or level estimate + fills (level sensors)
  'visits', // toll-geofence visits, ≤24-hour windows
  'bookings', // carpool bookings, ≤31-day windows, re-pulled until final
] as const;
export type StreamName = (typeof STREAMS)[number];

/** Ledger statuses of a window. */
export type WindowStatus = 'done' | 'incomplete' | 'flagged' | 'failed';

export interface SyncRequest {
  /** Local calendar days, both inclusive; omitted = incremental (gaps since coverage + look-back). */
  fromDay?: string;
  toDay?: string;
  streams?: StreamName[];
  trigger: 'cli' | 'schedule' | 'api' | 'demo';
  /** Print the plan only: nothing is sent. */
  planOnly?: boolean;
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
  streams: Partial<Record<StreamName, StreamCounts>>;
  /** The API's release notes, checked at the end of the run (never fails the run). */
  apiChanges?: {
    status: string;
    newReleases: number;
    flagged: { version: string; kind: string; endpoints: string[]; text: string }[];
  };
  /** First few failures: stream, scope, window, reason. */
  errors: { stream: string; scope: string; window: string; reason: string }[];
}

export interface PlanSummary {
  account: string;
  fromDay: string;
  toDay: string;
  requestsByBucket: Record<string, number>;
  requestsByStream: Record<string, number>;
  /** The least wall time the rate limits allow for this plan. */
  leastDurationMs: number;
  /** Which fuel path the planner chose and why. */
  fuelPath: { chosen: 'per_vehicle_get' | 'bulk_post'; getMs: number; postMs: number };
  notes: string[];
}

export interface SyncProgress {
  stream: StreamName;
  done: number;
  total: number;
}
