/**
 * What `fleetsync status` shows, as one object: the last runs, coverage per stream, flagged and
 * failed windows, the snapshots that failed in each account's last run, and the verdict (exit
 * code and its reasons). The CLI builds it from the database, or — when a running `serve` holds
 * the file — gets the same object from that server's GET /api/status; either way it prints it
 * with `formatStatus`. Every value is plain JSON (times as ISO strings in the zone, counters as
 * objects), never JSON inside a string.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { ACCESS_WORDS } from '../api/access.ts';
import { runsOutsideDb } from '../outcome/runs.ts';
import type { CheckpointFailure, OutcomeDoc } from '../outcome/outcomes.ts';
import type {
  CompleteThrough,
  RunOutsideDb,
  EndpointRefusal,
  FailedSnapshot,
  StatusReport,
  StatusRow,
  StatusVerdict,
  UnknownValue,
} from '../server/api-types.ts';
import { DEFAULT_TIMEZONE } from '../defaults.ts';
import { reportMeta, resolveZone } from '../reports/run.ts';
import { prepareModelConnection } from '../store/models.ts';
import { accountsIn } from '../store/accounts.ts';
import { queryJs } from '../store/queries.ts';
import { BUILTIN_STREAMS } from '../sync/streams/index.ts';
import { formatIsoInZone, isValidTimeZone, msOf } from '../time.ts';

export type { EndpointRefusal, FailedSnapshot, StatusReport, StatusRow, StatusVerdict, UnknownValue };

const PROBLEM_LIMIT = 50;
const JSON_COLUMNS = new Set(['http_429', 'errors', 'windows_by_stream', 'skipped']);
const SNAPSHOT_STREAMS = new Set<string>(BUILTIN_STREAMS.filter((d) => d.snapshot).map((d) => d.name));

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v; // not JSON: shown as stored
  }
}

function jsonValue(key: string, v: unknown, zone: string): unknown {
  if (v instanceof Date) return formatIsoInZone(v.getTime(), zone);
  if (typeof v === 'bigint') return Number(v);
  if (JSON_COLUMNS.has(key)) return parseJson(v);
  return v;
}

const jsonRows = (rows: Record<string, unknown>[], zone: string): StatusRow[] =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonValue(k, v, zone)])));

/** The snapshots that failed in a run: its per-stream window counts, the reasons from its errors. */
export function failedSnapshotsOf(run: {
  account: string;
  run_id: string;
  windows_by_stream: unknown;
  errors: unknown;
}): FailedSnapshot[] {
  const windows = (parseJson(run.windows_by_stream) ?? {}) as Record<string, Record<string, number>>;
  const errors = (parseJson(run.errors) ?? []) as { stream?: string; window?: string; reason?: string }[];
  return Object.entries(typeof windows === 'object' ? windows : {})
    .filter(([stream, w]) => SNAPSHOT_STREAMS.has(stream) && Number(w?.failed ?? 0) > 0)
    .map(([stream]) => ({
      account: run.account,
      run_id: run.run_id,
      stream,
      reason:
        (Array.isArray(errors) ? errors : []).find((e) => e.stream === stream && e.window === 'snapshot')
          ?.reason ?? null,
    }));
}

/** "Complete through" of every account, in its recorded zone (the same figure as the API and exports). */
async function completeThroughOf(con: DuckDBConnection, nowMs: number): Promise<CompleteThrough[]> {
  const out: CompleteThrough[] = [];
  for (const account of await accountsIn(con)) {
    const zone = await resolveZone(con, account, DEFAULT_TIMEZONE);
    const m = await reportMeta(con, { account, zone, nowMs });
    out.push({
      account,
      zone,
      complete_through: m.complete_through,
      complete_through_day: m.complete_through_day,
      complete_through_text: m.complete_through_text,
    });
  }
  return out;
}

/** How a field's unknown value reads after the record's name ("1 booking in a status …"). */
const UNKNOWN_PHRASE: Readonly<Record<string, string>> = {
  booking_status: 'in a status',
  setup_status: 'with a setup status',
  trip_type: 'with a trip type',
};

/** "1 booking in a status this version does not know: BOOKING_STATUS_ON_HOLD". */
export function unknownValueText(v: {
  record: string;
  field: string;
  value: string;
  records: number;
}): string {
  const what = v.records === 1 ? v.record : `${v.record}s`;
  const phrase = UNKNOWN_PHRASE[v.field] ?? `with a ${v.field}`;
  return `${v.records.toLocaleString('en-US')} ${what} ${phrase} this version does not know: ${v.value}`;
}

/** The values every account's stored records carry that this version does not know. */
export async function unknownValuesOf(con: DuckDBConnection): Promise<UnknownValue[]> {
  await prepareModelConnection(con);
  const out: UnknownValue[] = [];
  for (const account of await accountsIn(con))
    for (const r of await queryJs(con, 'status/unknown_values', [account])) {
      const v = {
        record: String(r.record),
        field: String(r.field),
        value: String(r.value),
        records: Number(r.records),
      };
      out.push({
        account,
        ...v,
        example_id: r.example_id === null ? null : String(r.example_id),
        text: unknownValueText(v),
      });
    }
  return out;
}

/** The endpoints each account may not read or does not have; none where the table is absent (an old lake). */
export async function endpointsRefused(con: DuckDBConnection, zone: string): Promise<EndpointRefusal[]> {
  let rows: Record<string, unknown>[];
  try {
    rows = await queryJs(con, 'status/endpoints_refused');
  } catch {
    return []; // a lake published before endpoint_access existed: nothing recorded
  }
  const at = (v: unknown) => formatIsoInZone(msOf(v), zone);
  return rows.map((r) => {
    const state = r.state === 'not_permitted' ? 'not_permitted' : 'not_available';
    return {
      account: String(r.account),
      endpoint: String(r.endpoint),
      state,
      text: ACCESS_WORDS[state],
      since: at(r.since),
      last_probed: at(r.last_probed),
      last_status: r.last_status === null ? null : Number(r.last_status),
      streams: typeof r.streams === 'string' && r.streams ? r.streams.split(',') : [],
    };
  });
}

/** The last finished run of each account (ok, partial, failed or interrupted), JS values. */
export async function lastRuns(con: DuckDBConnection): Promise<Record<string, unknown>[]> {
  return queryJs(con, 'alerts/last_runs');
}

/** The verdict over the accounts' last runs, the failed snapshots and the failed windows. */
export function verdictOf(
  last: { account: string; run_id: string; outcome: string; errors: unknown }[],
  failedSnapshots: FailedSnapshot[],
  coverage: { account: string; stream: string; failed: unknown; failed_incomplete?: unknown }[],
): StatusVerdict {
  let code: 0 | 1 | 3 | 5 = 0;
  const problems: string[] = [];
  for (const r of last) {
    if (r.outcome === 'ok') continue;
    const errs = parseJson(r.errors);
    const stop = Array.isArray(errs)
      ? (errs as { stream?: string; reason?: string }[]).find((e) => e.stream === '*')?.reason
      : undefined;
    if (r.outcome === 'failed') {
      code = 1;
      problems.push(`account ${r.account}: the last run ${r.run_id} failed${stop ? `: ${stop}` : ''}`);
    } else {
      if (code === 0) code = 3;
      problems.push(
        r.outcome === 'interrupted'
          ? `account ${r.account}: the last run ${r.run_id} was interrupted; the next run fills the gaps`
          : `account ${r.account}: the last run ${r.run_id} was partial`,
      );
    }
  }
  for (const s of failedSnapshots) {
    if (code === 0) code = 3;
    problems.push(
      `account ${s.account}: the ${s.stream} snapshot failed in run ${s.run_id}${s.reason ? `: ${s.reason}` : ''}`,
    );
  }
  for (const c of coverage) {
    const n = Number(c.failed);
    if (n > 0) {
      if (code === 0) code = 3;
      const short = Number(c.failed_incomplete ?? 0);
      problems.push(
        `account ${c.account}: ${n} failed ${c.stream} window(s)` +
          (short > 0
            ? `, ${short} of them because the API's pages held fewer or other records than it announced (E_INCOMPLETE); pulled again by the next run`
            : ''),
      );
    }
  }
  return { exit_code: code, problems };
}

/**
 * The report with the last checkpoint's failure (null: none) in its verdict: a problem line, and
 * exit 5 when nothing else is wrong (a failed or partial run says more).
 */
export function withCheckpoint(report: StatusReport, checkpoint: CheckpointFailure | null): StatusReport {
  if (!checkpoint) return { ...report, checkpoint: null };
  const v = report.verdict;
  return {
    ...report,
    checkpoint,
    verdict: {
      exit_code: v.exit_code || 5,
      problems: [
        ...v.problems,
        `the last checkpoint failed (runs ${checkpointRuns(checkpoint)}): ${checkpoint.problem}`,
      ],
    },
  };
}

/** The runs whose data wait in the write-ahead log, as `account run_id, …`. */
const checkpointRuns = (c: CheckpointFailure) =>
  c.runs.map((r) => `${r.account} ${r.run_id ?? 'not started'}`).join(', ') || 'none named';

export async function buildStatus(
  con: DuckDBConnection,
  opts: { database: string; zone: string; runs: number; nowMs: number; outcomes?: OutcomeDoc },
): Promise<StatusReport> {
  // Times in the zone the accounts were synced in (the pages' zone), when they share one; the
  // configured zone only for a database with no recorded zone or accounts in several zones.
  const zones = (await queryJs(con, 'status/recorded_zones')).map((r) => String(r.timezone));
  const o = { ...opts, zone: zones.length === 1 && isValidTimeZone(zones[0]!) ? zones[0]! : opts.zone };
  const runs = await queryJs(con, 'status/runs', [o.runs]);
  const coverage = await queryJs(con, 'status/coverage');
  const problems = await queryJs(con, 'status/problem_windows', [PROBLEM_LIMIT]);
  const fromDb = await lastRuns(con);
  const last = fromDb.map((r) => ({
    account: String(r.account),
    run_id: String(r.run_id),
    outcome: String(r.outcome),
    windows_by_stream: r.windows_by_stream,
    errors: r.errors,
  }));
  const failedSnapshots = last.flatMap(failedSnapshotsOf);
  const outside = outsideOf(fromDb, opts.outcomes, o.zone);
  const report: StatusReport = {
    database: o.database,
    zone: o.zone,
    complete_through: await completeThroughOf(con, o.nowMs),
    runs: jsonRows(runs, o.zone),
    coverage: jsonRows(coverage, o.zone),
    problem_windows: jsonRows(problems, o.zone),
    failed_snapshots: failedSnapshots,
    runs_outside_db: outside,
    unknown_values: await unknownValuesOf(con),
    endpoints_refused: await endpointsRefused(con, o.zone),
    verdict: verdictOf(
      [
        ...last.filter((l) => !outside.some((x) => x.account === l.account)),
        ...outside.map((x) => ({ ...x, errors: [{ stream: '*', reason: x.reason }] })),
      ],
      failedSnapshots,
      coverage.map((c) => ({
        account: String(c.account),
        stream: String(c.stream),
        failed: c.failed,
        failed_incomplete: c.failed_incomplete,
      })),
    ),
    checkpoint: null,
  };
  return withCheckpoint(report, opts.outcomes?.checkpoint ?? null);
}

/** The last runs the state file knows and the database does not hold (see alerts/state.ts runsOutsideDb). */
export function outsideOf(
  fromDb: Record<string, unknown>[],
  doc: OutcomeDoc | undefined,
  zone: string,
): RunOutsideDb[] {
  if (!doc) return [];
  const held = new Map(
    fromDb.map((r) => [
      String(r.account),
      {
        run_id: String(r.run_id),
        startedMs: r.started_at instanceof Date ? r.started_at.getTime() : 0,
      },
    ]),
  );
  return runsOutsideDb(held, doc).map(({ account, run }) => ({
    account,
    run_id: run.run_id,
    trigger: run.trigger,
    outcome: run.outcome,
    started_at: formatIsoInZone(run.startedMs, zone),
    ended_at: formatIsoInZone(run.endedMs, zone),
    reason: run.errors[0]?.reason ?? null,
  }));
}

/** An ISO local time as `YYYY-MM-DD HH:MM` for the text tables; anything else as is, `-` for none. */
const cell = (v: unknown): string =>
  v === null || v === undefined
    ? '-'
    : typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v)
      ? v.slice(0, 16)
      : String(v);

function table(head: string[], rows: unknown[][]): string {
  const text = [head, ...rows.map((r) => r.map(cell))];
  const widths = head.map((_, i) => Math.max(...text.map((r) => (r[i] ?? '').length)));
  return text
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The status as text; `source` says where it came from (a running server) when not the file itself. */
export function formatStatus(s: StatusReport, source?: string): string {
  const out: string[] = [
    `database ${s.database} (times in ${s.zone})${source ? `, as reported by the running server ${source}` : ''}`,
    '',
  ];
  for (const t of s.complete_through)
    out.push(`account ${t.account} (${t.zone}): ${t.complete_through_text}`);
  if (s.complete_through.length) out.push('');
  out.push('last runs:');
  out.push(
    s.runs.length
      ? table(
          ['run', 'account', 'trigger', 'outcome', 'started', 'seconds', 'requests', 'retries', 'range'],
          s.runs.map((r) => [
            r.run_id,
            r.account,
            r.trigger,
            r.outcome,
            r.started_at,
            (Number(r.duration_ms) / 1000).toFixed(1),
            r.requests,
            r.retries,
            `${cell(r.range_from)}..${cell(r.range_to)}`,
          ]),
        )
      : '  (no runs yet: run `fleetsync sync`)',
  );
  if (s.runs_outside_db?.length) {
    out.push('', 'last runs the database does not show (from the state file beside it):');
    for (const r of s.runs_outside_db)
      out.push(
        `  account ${r.account}: run ${r.run_id} (${r.trigger}) ${r.outcome}, started ${cell(r.started_at)}: ${r.reason ?? 'no reason recorded'}`,
      );
  }
  out.push('', 'coverage per stream:');
  out.push(
    s.coverage.length
      ? table(
          ['account', 'stream', 'from', 'to', 'done', 'incomplete', 'flagged', 'failed', 'last fetched'],
          s.coverage.map((r) => [
            r.account,
            r.stream,
            r.covered_from,
            r.covered_to,
            r.done,
            r.incomplete,
            r.flagged,
            r.failed,
            r.last_fetched,
          ]),
        )
      : '  (nothing synced yet)',
  );
  if (s.failed_snapshots.length) {
    out.push('', 'snapshots that failed in the last run:');
    out.push(
      table(
        ['account', 'snapshot', 'run', 'reason'],
        s.failed_snapshots.map((f) => [f.account, f.stream, f.run_id, f.reason]),
      ),
    );
  }
  if (s.unknown_values.length) {
    out.push('', 'values this version does not know (kept as sent; what depends on them is blank):');
    for (const v of s.unknown_values) out.push(`  account ${v.account}: ${v.text}`);
  }
  if (s.endpoints_refused?.length) {
    out.push('', 'endpoints not permitted or not available (their streams are skipped; each run asks once):');
    out.push(
      table(
        ['account', 'endpoint', 'state', 'since', 'last asked', 'streams skipped'],
        s.endpoints_refused.map((e) => [
          e.account,
          e.endpoint,
          e.text,
          e.since,
          e.last_probed,
          e.streams.join(',') || '-',
        ]),
      ),
    );
  }
  out.push(
    '',
    `flagged and failed windows${s.problem_windows.length === PROBLEM_LIMIT ? ' (first 50)' : ''}:`,
  );
  out.push(
    s.problem_windows.length
      ? table(
          ['status', 'stream', 'vehicle', 'from', 'to', 'reason'],
          s.problem_windows.map((r) => [
            r.status,
            r.stream,
            r.registration ?? r.scope,
            r.window_start,
            r.window_end,
            r.reason,
          ]),
        )
      : '  none',
  );
  out.push(
    '',
    s.verdict.problems.length
      ? `not ok (exit ${s.verdict.exit_code}):\n${s.verdict.problems.map((p) => `  - ${p}`).join('\n')}`
      : 'ok: the last run of every account was ok and no window or snapshot has failed',
  );
  return out.join('\n') + '\n';
}
