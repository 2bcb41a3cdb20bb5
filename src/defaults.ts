/**
 * Every default of fleetsync, stated once. The config schema (src/config.ts), the API client
 * (src/api) and the sync (src/sync) read them from here; nothing else writes these numbers.
 */

const HOUR_MS = 3_600_000;

/** The API's rate-limit window (60 s on the real service); FLEETSYNC_RATE_WINDOW_MS. */
export const DEFAULT_RATE_WINDOW_MS = 60_000;
/** Headers and body (idle) timeout per request; FLEETSYNC_HTTP_TIMEOUT_MS. */
export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** Requests (and sync units of work) in flight at once; FLEETSYNC_CONCURRENCY. */
export const DEFAULT_CONCURRENCY = 16;
/**
 * The circuit breaker: a run stops when the API has answered nothing but connection errors,
 * timeouts or 5xx for this many requests in a row, or for this long; FLEETSYNC_BREAKER_FAILURES,
 * FLEETSYNC_BREAKER_MS.
 */
export const DEFAULT_BREAKER_FAILURES = 20;
export const DEFAULT_BREAKER_MS = 120_000;
/** Records asked per page: the largest the API honours. */
export const PAGE_LIMIT = 500;
/**
 * A page that does not add up (short, empty before the last, repeating an earlier record, a total
 * other than page 1's) is asked again this many times before its read fails (E_INCOMPLETE).
 */
export const PAGE_RETRIES = 2;
/**
 * Records a fleet-wide paged window (trips) may hold at once: its records are held until its
 * write, so a window with more is fetched in smaller pieces (the sync's memory stays flat in the
 * fleet's size).
 */
export const MAX_WINDOW_RECORDS = 20_000;
/**
 * What a stream's writer may have waiting (bytes: its windows' rows as columns and their range
 * deletes, sync/commit.ts `writeBytes`) before the stream fetches another window: where the API
 * answers faster than the writer stores (raised limits, a big fleet's first night), windows would
 * otherwise pile up in memory (129 windows, 55,744 rows on one writer at 800 vehicles). ~7,500
 * trips (~560 bytes each as columns, most of it their own strings), ~120,000 fuel level readings
 * (33 bytes). 1 MiB (about the windows 4 MiB of rows as objects held) cost CPU at 50 and 200
 * vehicles for ~15 MB less peak RSS at 800 (docs/performance.md, session 18 `cols`); 40,000 rows
 * of any width before session 15.
 */
export const MAX_WRITE_BACKLOG_BYTES = 4 * 2 ** 20;
/**
 * A run of at most this many planned units writes every stream's windows on one writer
 * connection, grouped across streams (src/sync/executor.ts); a larger one has a writer per ledger
 * stream (50 veh × 7 d plans 168 units, 500 × 7 d 1,444). At a small fleet the writers' fixed work (a connection each, the
 * refresh's macros defined on each, a BEGIN, COMMIT and ledger delete per stream's commit) was
 * most of a run's CPU; at 5,000 vehicles one writer made the streams wait on each other (wall
 * and peak RSS up, docs/performance.md "Sync CPU per request").
 */
export const SHARED_WRITER_MAX_UNITS = 2_000;
/** Registrations per bulk POST (the API's maximum); longer lists are split. */
export const BULK_MAX_VEHICLES = 100;

/** Look-back for late data: windows ending less than this before now are pulled again later. */
export const SETTLE_MS = 72 * HOUR_MS;
/**
 * Maximum lateness: a window whose vehicles' data has not reached its end this long after it ended
 * is accepted and marked "accepted incomplete" (ledger status flagged, with the reason); a vehicle
 * silent for longer than this is taken as out of service and holds no later window.
 * FLEETSYNC_MAX_LATENESS_DAYS.
 */
export const DEFAULT_MAX_LATENESS_DAYS = 14;
export const MAX_LATE_MS = DEFAULT_MAX_LATENESS_DAYS * 24 * HOUR_MS;
/** Odometer data this much older than the window's end (or now) means the window is incomplete. */
export const ODOMETER_LAG_MS = 12 * HOUR_MS;
/** Local days the first incremental run covers (and an open-ended --to reaches back). */
export const FIRST_RUN_DAYS = 30;
/** Bookings are scheduled ahead: the sync covers this many days beyond the wanted range. */
export const BOOKINGS_AHEAD_DAYS = 31;

/** The DuckDB file; FLEETSYNC_DB. */
export const DEFAULT_DB_PATH = 'data/fleet.duckdb';
/** The demo's database (`npm start`), in the current directory. */
export const DEMO_DB_PATH = 'data/demo.duckdb';
/** The dashboard's address; FLEETSYNC_HOST, FLEETSYNC_PORT. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;
/** The account's zone when none is configured; FLEET_TIMEZONE. */
export const DEFAULT_TIMEZONE = 'Africa/Johannesburg';

/** Data is stale when "complete through" has not moved for this many hours; FLEETSYNC_STALE_HOURS. */
export const DEFAULT_STALE_HOURS = 48;
/** Days after a month ends when an incomplete month-end pack is sent anyway, marked partial. */
export const DEFAULT_REPORT_DEADLINE_DAYS = 5;
/** How often `serve` checks whether a subscription is due (docs/subscriptions.md). */
export const SUBSCRIPTION_CHECK_MS = 60_000;
/**
 * How long after its scheduled time a subscription's send not yet made (the server was down) is
 * still made, once, at start or at the next check; with `if_incomplete: wait`, counted from the
 * end of the wait. Only the latest scheduled time in that window is sent.
 */
export const SUBSCRIPTION_CATCH_UP_HOURS = 24;
/** How often `serve` checks for stale data and retries undelivered alerts. */
export const ALERT_CHECK_MS = 60_000;
/** How long one alert delivery (webhook POST, SMTP) may take. */
export const ALERT_TIMEOUT_MS = 10_000;
/**
 * A stopping server's wait for its routes' database work (src/server/drain.ts): statements still
 * running this long after it stopped taking requests are interrupted (a year's export would
 * otherwise hold `systemctl stop` for its whole run)…
 */
export const DRAIN_INTERRUPT_MS = 5_000;
/** …and connections still open this long after that (a leak) are reported and left behind. */
export const DRAIN_GIVE_UP_MS = 10_000;
/**
 * A stopping server's wait for the work it started (src/server/start.ts): the sync run, the
 * overview's warm-up, the month-end pack, the alert check and the subscriptions end on their own
 * stop signals; what still runs this long after the stop began is logged by name and left to the
 * routes' drain (DRAIN_*), which interrupts its statements. With the drain a stop takes at most
 * ~35 s, inside the units' TimeoutStopSec=60s (deploy/systemd).
 */
export const STOP_WORK_GIVE_UP_MS = 20_000;
/**
 * A command asked to stop (SIGTERM, Ctrl-C) that has ended: the process exits this long after,
 * whatever it left behind (logged) still holds it open (src/cli.ts).
 */
export const STOPPED_EXIT_MS = 1_000;

/**
 * kg CO₂ per litre burned (tank-to-wheel), used by the `costs` report unless the prices file
 * (FLEETSYNC_PRICES, `emission_factors_kg_per_l`) says otherwise: the widely published
 * combustion figures from the fuels' carbon content (docs/reports.md "CO₂ factors" names sources and how
 * official factors differ).
 */
export const DEFAULT_EMISSION_FACTORS: Readonly<Record<string, number>> = Object.freeze({
  diesel: 2.68,
  petrol: 2.31,
});

/** FLEETSYNC_FUEL_DROP_L: a parked fall of the tank level larger than this is a suspected drop. */
export const DEFAULT_FUEL_DROP_L = 8;
/**
 * FLEETSYNC_TAX_YEAR_START: the first day ('MM-DD') of the logbook's tax year, by the account's
 * country (FLEET_COUNTRY): SARS 1 March, ATO 1 July, IRD 1 April; anywhere else the calendar year.
 */
export const TAX_YEAR_START_BY_COUNTRY: Readonly<Record<string, string>> = {
  za: '03-01',
  au: '07-01',
  nz: '04-01',
};
export const DEFAULT_TAX_YEAR_START = '01-01';
export const taxYearStartFor = (country: string | null | undefined): string =>
  TAX_YEAR_START_BY_COUNTRY[(country ?? '').toLowerCase()] ?? DEFAULT_TAX_YEAR_START;
/** A suspected drop happens within this long (a slower fall is not listed). */
export const FUEL_DROP_MAX_MINUTES = 30;

// Driver scorecards and fuel efficiency (issue 27; docs/reports.md "driver_scores", "fuel_efficiency").
/**
 * FLEETSYNC_SCORE_WEIGHTS: points a driver loses per event per 100 km (per minute of speeding per
 * 100 km for `speeding_min`): score = max(0, 100 − Σ weight × rate per 100 km).
 */
export const DEFAULT_SCORE_WEIGHTS: Readonly<ScoreWeights> = Object.freeze({
  braking: 5,
  acceleration: 3,
  cornering: 3,
  speeding: 2,
  speeding_min: 1,
});
export interface ScoreWeights {
  braking: number;
  acceleration: number;
  cornering: number;
  speeding: number;
  speeding_min: number;
}
/** FLEETSYNC_SCORE_MIN_KM: a driver-month with less trip distance is listed but not ranked. */
export const DEFAULT_SCORE_MIN_KM = 100;
/** FLEETSYNC_FUEL_OUTLIER_PCT: a month this many percent above the vehicle's 3-month baseline is an outlier. */
export const DEFAULT_FUEL_OUTLIER_PCT = 15;

/** Bytes per slot of the run-outcome state file beside the database (two slots, fixed size: src/outcome/state-file.ts). */
export const STATE_FILE_SLOT_BYTES = 256 * 1024;
/** How often a run records its last request time in the state file (ms). */
export const OUTCOME_ACTIVITY_MS = 250;

// Service due (issue 28 item 1; docs/service.md).
/** The service plan's warning distance when the file gives none: due within this many km. */
export const DEFAULT_SERVICE_WARN_KM = 1000;
/** The service plan's warning time when the file gives none: due within this many days. */
export const DEFAULT_SERVICE_WARN_DAYS = 30;
/** The forecast rests on the vehicle's counted odometer windows that reach into this many days before its odometer's last instant. */
export const SERVICE_FORECAST_DAYS = 30;
/** Fewer days than this known in those windows: no forecast (unknown, never a guess from zero). */
export const SERVICE_FORECAST_MIN_DAYS = 14;
