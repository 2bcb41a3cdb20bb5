/**
 * The JSON answers of the dashboard's API, declared once: the routes build them (`satisfies`)
 * and the dashboard's JavaScript reads them through JSDoc (`@typedef {import(...)}`), both
 * type-checked (`npm run typecheck`: tsconfig.json and dashboard/tsconfig.json).
 *
 * A report's row type derives from its columns in the registry, so a column renamed there is a
 * type error wherever the dashboard reads it. Every cell may be null: unknown is sent as null,
 * never as zero. This module imports only modules that import nothing (the registry, the stored
 * flag, the lake's job outcome), so the dashboard's program stays free of Node's types.
 */
import type { StoredFlag } from '../changes/stored-flag.ts';
import type { JobOutcome } from '../lake/outcome-types.ts';
import type { Display, Presentation } from '../reports/columns.ts';
import type { ColumnDef, ColumnKind, ReportDefs } from '../reports/registry.ts';
import type { ScoreWeights } from '../defaults.ts';
import type { CheckpointFailure } from '../outcome/checkpoint-types.ts';

export type { ColumnDef, ColumnKind, Display };

/**
 * A column as the API describes it: what it is (registry) and how people read it (columns.ts:
 * label, unit, display, fixed places); a column of reason codes or other enum codes also
 * carries each code's label in `labels`.
 */
export type ColumnInfo = ColumnDef & Omit<Presentation, 'values'> & { labels?: Record<string, string> };

/** One reason code of the vocabulary (queries/models/reason_codes.sql). */
export interface ReasonCodeInfo {
  code: string;
  /** The ledger stream whose windows it applies to. */
  stream: string;
  label: string;
}

/** The name of a report (`/api/reports/<name>`). */
export type ReportName = ReportDefs[number]['name'];

type ColumnsOf<N extends ReportName> = Extract<ReportDefs[number], { name: N }>['columns'][number];

/** The JSON value of a column of this kind: times, days and months are ISO text. */
export type CellOf<K extends ColumnKind> = K extends 'number' | 'integer'
  ? number
  : K extends 'boolean'
    ? boolean
    : string;

/** A JSON cell of any report. */
export type Cell = string | number | boolean | null;

/** One row of report N, as `GET /api/reports/N` sends it. */
export type ReportRow<N extends ReportName> = {
  [C in ColumnsOf<N> as C['name']]: CellOf<C['kind']> | null;
};

/** A column name of report N. */
export type ColumnOf<N extends ReportName> = ColumnsOf<N>['name'];

/** When a report's figures were made and how far its data reach (every answer and export states it). */
export interface ReportMeta {
  generated_at: string;
  zone: string;
  /** The instant (ISO, local offset) up to which every stream is synced: an exclusive end. */
  complete_through: string | null;
  /** The last complete local day, inclusive (YYYY-MM-DD); null before anything is complete. */
  complete_through_day: string | null;
  /** The same in words: `complete through 19 Nov 2026 (local)`. */
  complete_through_text: string;
  run_id: string | null;
}

/** `GET /api/reports/<name>`: a page of rows with the report's sidecar facts (ReportMeta's among them). */
export interface ReportAnswer<Row = Record<string, Cell>> extends ReportMeta {
  report: string;
  title: string;
  /** The parameters as validated (local days, inclusive). */
  params: {
    from: string;
    to: string;
    vehicle: number | null;
    department: string | null;
    grain?: string;
    limit?: number;
    driver?: string | null;
    site?: string | null;
  };
  /** For a range that reaches past today: up to when it holds data (null otherwise). */
  range_note: string | null;
  /**
   * Endpoints the report's data need that the account may not read or does not have: its figures
   * from them are not available for these credentials (blank, never 0). Empty when whole.
   */
  unavailable: EndpointRefusal[];
  /** The configured settings its figures depend on (driver_scores, fuel_efficiency); absent otherwise. */
  settings?: ReportSettings;
  columns: readonly ColumnInfo[];
  /** Rows of the whole result (all pages). */
  total: number;
  /** Present when the report pages (it has no `limit` parameter of its own). */
  offset?: number;
  limit?: number;
  /** Sums over all rows of the columns marked `total`. */
  totals: Record<string, number | null>;
  /** Of those columns, the rows with no value (blank: unknown or not applicable): the total covers the rest. */
  totals_blank: Record<string, number>;
  rows: Row[];
}

/** FLEETSYNC_SCORE_WEIGHTS / _SCORE_MIN_KM / _FUEL_OUTLIER_PCT as a report's answer states them. */
export interface ReportSettings {
  score_weights?: ScoreWeights;
  score_min_km?: number;
  fuel_outlier_pct?: number;
}

/** `GET /api/reports/<N>`, its rows typed by the registry. */
export type ReportAnswerOf<N extends ReportName> = ReportAnswer<ReportRow<N>> & { report: N };

/** `GET /api/reports`: the registry. */
export interface ReportsIndexAnswer {
  reports: {
    name: string;
    title: string;
    grain: string;
    columns: readonly ColumnInfo[];
    params: string[];
  }[];
  reasons: readonly ReasonCodeInfo[];
}

/** A run's counters as objects (the `runs` report holds them as JSON text, as in the CSV). */
export interface RunCounters {
  http_429: Record<string, number> | null;
  windows_by_stream: Record<
    string,
    Partial<Record<'done' | 'incomplete' | 'flagged' | 'failed', number>>
  > | null;
  errors: { stream: string; scope: string; window: string; reason: string }[] | null;
  /** The streams the run left out: an endpoint not permitted or not available (null: none). */
  skipped: { stream: string; endpoint: string; state: string; reason: string }[] | null;
}

/** The newest row of the `runs` report, its counters as objects. */
export type LastRunAnswer = Omit<ReportRow<'runs'>, keyof RunCounters> & RunCounters;

/** A snapshot (vehicles, geofences, carpool) that failed in an account's last run. */
export interface FailedSnapshot {
  account: string;
  run_id: string;
  stream: string;
  reason: string | null;
}

/**
 * A value the API sent that this version does not know (a new enum value), kept as sent: how many
 * stored records of an account carry it. A fact to show, not a failure (the verdict ignores it).
 */
export interface UnknownValue {
  account: string;
  record: string;
  field: string;
  value: string;
  records: number;
  example_id: string | null;
  /** "1 booking in a status this version does not know: BOOKING_STATUS_ON_HOLD". */
  text: string;
}

/**
 * An endpoint an account may not read (403: `not_permitted`) or does not have (404 on a
 * collection: `not_available`); the streams that need it are skipped and each run asks once.
 */
export interface EndpointRefusal {
  account: string;
  endpoint: string;
  state: 'not_permitted' | 'not_available';
  /** "not permitted for these credentials" / "not available on this account". */
  text: string;
  /** When the current state began (first seen refused), and the last run that asked: ISO in the zone. */
  since: string;
  last_probed: string;
  last_status: number | null;
  /** The streams skipped while it lasts. */
  streams: string[];
}

/** What `fleetsync status` concludes, with its exit code. */
export interface StatusVerdict {
  /**
   * 0: every account's last run ok and no window or snapshot failed; 3: partial; 1: a last run
   * failed; 5: the runs were ok but the database file could not take them (kept in its .wal).
   */
  exit_code: 0 | 1 | 3 | 5;
  problems: string[];
}

/**
 * A run known only from the state file beside the database: its `runs` row could not be written
 * (a full disk) or its process died before it could end it (killed, out of memory, an abort).
 */
export interface RunOutsideDb {
  account: string;
  run_id: string;
  trigger: string;
  outcome: string;
  started_at: string;
  ended_at: string;
  /** Why it failed: the error (ENOSPC…), or that the process died and the last thing it logged. */
  reason: string | null;
}

/** A row of the status tables (times ISO text in the zone, counters as objects). */
export type StatusRow = Record<string, unknown>;

/** An account's "complete through": the instant, the last complete local day, and in words. */
export interface CompleteThrough {
  account: string;
  zone: string;
  complete_through: string | null;
  complete_through_day: string | null;
  complete_through_text: string;
}

/** What `fleetsync status` prints (from the file, or from a running server's GET /api/status). */
export interface StatusReport {
  database: string;
  zone: string;
  /** Per account (GET /api/status sends it as `complete_through_by_account`). */
  complete_through: CompleteThrough[];
  runs: StatusRow[];
  coverage: StatusRow[];
  problem_windows: StatusRow[];
  failed_snapshots: FailedSnapshot[];
  /** Last runs the database does not show (see RunOutsideDb); they decide the verdict. */
  runs_outside_db: RunOutsideDb[];
  /** Values the API sent that this version does not know, per account (empty: none). */
  unknown_values: UnknownValue[];
  /** Endpoints not permitted or not available, per account (not failures: the verdict ignores them). */
  endpoints_refused: EndpointRefusal[];
  verdict: StatusVerdict;
  /** The last checkpoint failed: the data wait in the write-ahead log (null: the file holds everything). */
  checkpoint: CheckpointFailure | null;
}

/**
 * `GET /api/status[?runs=N]`: the account's zone, freshness, last run and sync availability, and
 * the status report of every account in the database (what `fleetsync status` prints beside it).
 */
export interface StatusAnswer extends Omit<StatusReport, 'complete_through'> {
  complete_through_by_account: CompleteThrough[];
  /** Which process and file answer (`status` checks it is the server holding its database). */
  server: { pid: number; database: string };
  account: string;
  zone: string;
  /** The server's clock, ISO UTC. */
  now: string;
  complete_through: string | null;
  complete_through_day: string | null;
  complete_through_text: string;
  last_run: LastRunAnswer | null;
  sync: {
    /** A sync engine is wired in (POST /api/sync can run one). */
    available: boolean;
    running: boolean;
    schedule: string | null;
    next_run: string | null;
  };
  /** Lake mode (`serve --lake`): every account's last worker job, and what is wrong (failed, stale, never published). */
  jobs?: { accounts: JobOutcome[]; problems: string[] };
}

/** `GET /api/accounts`: the accounts this server shows and the one a request without `account` gets. */
export interface AccountsAnswer {
  accounts: string[];
  current: string;
}

export type { StoredFlag };

/** `GET /api/changes` and `POST /api/changes/ack`: the open flagged release notes. */
export interface ChangesAnswer {
  flagged: StoredFlag[];
}

/** `POST /api/sync`: the run's summary (the fields the dashboard shows). */
export interface SyncAnswer {
  run_id: string;
  outcome: 'ok' | 'partial' | 'failed';
  requests: number;
}

/** Any error answer (4xx/5xx). */
export interface ErrorAnswer {
  error: string;
  message: string;
}

/** POST /api/service/done: the service recorded (docs/service.md). */
export interface ServiceDoneAnswer {
  vehicle_id: number;
  /** The vehicle's line of the service_due report after it. */
  service_due: Record<string, unknown> | null;
  /** What to know about it, each a sentence: recorded with force over a known reading; no plan counts it. */
  notes: string[];
}

/** POST /api/service/done refused (400): every problem in `message`; `forcible` when `"force": true` records it. */
export interface ServiceRefusedAnswer extends ErrorAnswer {
  forcible: boolean;
}

/** The last message of a subscription (`subscription_sends`, or `report_packs` for the pack). */
export interface SubscriptionSendAnswer {
  /** ISO instant with the account zone's offset. */
  sent_at: string;
  period_from: string;
  period_to: string;
  partial: boolean;
  reason: string | null;
  trigger: string;
  recipients: string;
}

/** `GET /api/subscriptions`: what is e-mailed on a schedule (docs/subscriptions.md), and the last send of each. */
export interface SubscriptionsAnswer {
  zone: string;
  /** FLEETSYNC_SUBSCRIPTIONS (null: none set). */
  file: string | null;
  subscriptions: {
    name: string;
    report: string;
    report_title: string;
    period: string;
    /** vehicle / department / account, in words ('' = the whole fleet). */
    filter: string;
    format: string;
    to: string[];
    schedule: string;
    /** 'send' partial at once, or 'wait' up to wait_hours for a complete period. */
    if_incomplete: string;
    wait_hours: number | null;
    last_send: SubscriptionSendAnswer | null;
  }[];
  /** The built-in month-end pack (FLEETSYNC_REPORT_*), when it has recipients. */
  month_end_pack: {
    to: string[];
    schedule: string | null;
    deadline_days: number;
    last_send: SubscriptionSendAnswer | null;
  } | null;
}
