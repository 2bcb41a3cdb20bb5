/**
 * The error tree. Every error fleetsync raises on purpose carries a stable `code` (for exit codes,
 * the runs table and tests) and, where one exists, its `cause`. Messages never contain secrets:
 * build them from names and counts, never from credentials or raw headers.
 */
export type ErrorCode =
  | 'E_CONFIG' // invalid configuration (env or config file)
  | 'E_USAGE' // bad command-line arguments
  | 'E_NOT_AVAILABLE' // the server has no sync engine wired in (POST /api/sync answers 503)
  | 'E_DB_LOCKED' // the DuckDB file is held by another process
  | 'E_DB' // any other database failure
  | 'E_DB_MEMORY' // a report ran out of DuckDB's memory limit even alone (the API answers 503), or a sync's window did (failed, pulled again by the next run)
  | 'E_HTTP' // a non-success HTTP status that retries could not fix
  | 'E_AUTH' // 401 from the API (or 403 on every endpoint tried: the credentials read nothing)
  | 'E_NOT_PERMITTED' // 403 on one endpoint while the credentials read others (src/api/access.ts)
  | 'E_ENDPOINT_MISSING' // 404 on a collection endpoint: not available on this account (src/api/access.ts)
  | 'E_RATE_LIMIT' // 429s beyond the retry budget
  | 'E_NETWORK' // connection reset, DNS, timeouts beyond the retry budget
  | 'E_API_DOWN' // the circuit breaker: nothing but connection errors, timeouts or 5xx for a while
  | 'E_PAYLOAD' // a response body that does not match the schema
  | 'E_INCOMPLETE' // a paged read whose pages do not add up to what page 1 announced
  | 'E_WINDOW_CAP' // a request window over the endpoint's cap (our bug, or a changed API)
  | 'E_SYNC_PARTIAL' // a sync finished with some windows failed
  | 'E_SYNC_BUSY' // a sync is already running in this process
  | 'E_EXPORT' // export failure
  | 'E_QUEUE_DOWN' // the worker's Postgres queue unreachable (at start, or longer than the outage bound)
  | 'E_BAD_REQUEST'; // dashboard/API query parameters

export class FleetsyncError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FleetsyncError';
    this.code = code;
    this.details = options?.details;
  }
}

export function isFleetsyncError(e: unknown, code?: ErrorCode): e is FleetsyncError {
  return e instanceof FleetsyncError && (code === undefined || e.code === code);
}

/** A one-line description of any thrown value, for logs and the ledger. */
export function describeError(e: unknown): string {
  if (e instanceof FleetsyncError) return `${e.code}: ${e.message}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
