/**
 * `status` beside a running `serve`: DuckDB lets only the server open the file, so the status is
 * asked from the server (GET /api/status on FLEETSYNC_HOST:FLEETSYNC_PORT, with FLEETSYNC_TOKEN when
 * set). The answer is used only when that server is the one holding this database (its PID and
 * database path match); otherwise the lock error stands, saying why the server could not be asked.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { FleetsyncError, describeError } from '../errors.ts';
import type { StatusAnswer } from '../server/api-types.ts';
import type { StatusReport } from './report.ts';

const ASK_TIMEOUT_MS = 10_000;

/** The same file whichever way it is named (relative to another working directory, a symlink). */
export function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

/** The address a client on this machine uses for the server's bind address. */
export function serverUrl(host: string, port: number): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`;
}

export async function askRunningServer(
  config: Pick<Config, 'dbPath' | 'host' | 'port' | 'token'>,
  runs: number,
  locked: FleetsyncError,
  fetchImpl: typeof fetch = fetch,
): Promise<{ report: StatusReport; url: string }> {
  const base = serverUrl(config.host, config.port);
  const refuse = (why: string) =>
    new FleetsyncError('E_DB_LOCKED', `${locked.message}\n${why}`, {
      cause: locked,
      details: locked.details,
    });
  if (config.port === 0)
    throw refuse('FLEETSYNC_PORT is 0 here, so the server cannot be asked: set FLEETSYNC_PORT to its port.');
  const url = `${base}/api/status?runs=${runs}`;
  let body: unknown;
  try {
    const res = await fetchImpl(url, {
      headers: config.token ? { authorization: `Bearer ${config.token}` } : {},
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (e) {
    throw refuse(
      `No fleetsync server answered GET ${base}/api/status (FLEETSYNC_HOST/FLEETSYNC_PORT): ${describeError(e)}.`,
    );
  }
  const b = body as Partial<StatusAnswer>;
  const pid = locked.details?.pid;
  const ours =
    b.server?.database !== undefined &&
    samePath(b.server.database, config.dbPath) &&
    (typeof pid !== 'number' || b.server.pid === pid);
  if (!ours || !b.verdict || !Array.isArray(b.runs) || !Array.isArray(b.complete_through_by_account))
    throw refuse(
      `The server at ${base} is not the one holding ${config.dbPath} (it serves ${b.server?.database ?? 'another database'}).`,
    );
  // The report as the file gives it (the answer's own complete_through is the dashboard account's).
  const report: StatusReport = {
    database: b.database!,
    zone: b.zone!,
    complete_through: b.complete_through_by_account,
    runs: b.runs,
    coverage: b.coverage ?? [],
    problem_windows: b.problem_windows ?? [],
    failed_snapshots: b.failed_snapshots ?? [],
    runs_outside_db: b.runs_outside_db ?? [],
    unknown_values: b.unknown_values ?? [],
    endpoints_refused: b.endpoints_refused ?? [],
    verdict: b.verdict,
    checkpoint: b.checkpoint ?? null,
  };
  return { report, url: base };
}
