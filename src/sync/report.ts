/** Text a scheduler (or a person) reads: the plan, a run summary, a progress bar. */
import { BUCKET_LIMITS } from '../api/buckets.ts';
import { ACCESS_WORDS } from '../api/access.ts';
import { formatLocalMinute } from '../time.ts';
import { fmt } from './stream.ts';
import type { PlanSummary, RunSummary, SyncProgress } from './types.ts';

const table = (rows: string[][]) => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '))
    .join('\n');
};

/** A bucket's limit per window, marked when it is not the spec's ("2000 granted", "5 lowered"). */
function limitText(bucket: string, limit: number | undefined): string {
  if (limit === undefined) return '';
  const documented = (BUCKET_LIMITS as Record<string, number>)[bucket];
  if (documented === undefined || documented === limit) return String(limit);
  return `${limit} ${limit > documented ? 'granted' : 'lowered'}`;
}

export function formatPlan(p: PlanSummary): string {
  const buckets = Object.entries(p.requestsByBucket).sort();
  const streams = Object.entries(p.requestsByStream).sort();
  return [
    `plan for ${p.account}: ${p.fromDay} .. ${p.toDay} (local days, inclusive)`,
    '',
    table([
      ['bucket', 'requests', 'limit'],
      ...buckets.map(([k, v]) => [k, String(v), limitText(k, p.limitsByBucket?.[k])]),
    ]),
    '',
    table([['stream', 'requests'], ...streams.map(([k, v]) => [k, String(v)])]),
    '',
    p.vehiclesUnknown
      ? `least time the rate limits allow: unknown until the vehicle list is stored (${fmt(p.leastDurationMs)} for the fleet-wide streams alone)`
      : `least time the rate limits allow: ${fmt(p.leastDurationMs)}`,
    ...p.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

/**
 * A failed window's label (its UTC instants, `windowLabel`) in the account's wall time with the
 * zone named, as `fleetsync status` and the pages show times (formatZoned):
 * `2026-10-25 09:00–2026-10-26 10:00 (Australia/Sydney)`. Anything else (a snapshot) as is.
 */
function localWindow(label: string, zone: string | undefined): string {
  const [a, b, more] = label.split('/');
  const from = Date.parse(a ?? '');
  const to = Date.parse(b ?? '');
  if (
    !zone ||
    more !== undefined ||
    !/Z$/.test(a!) ||
    !/Z$/.test(b!) ||
    Number.isNaN(from) ||
    Number.isNaN(to)
  )
    return label;
  return `${formatLocalMinute(from, zone)}–${formatLocalMinute(to, zone)} (${zone})`;
}

export function formatSummary(s: RunSummary): string {
  const rows = Object.entries(s.streams).map(([name, c]) => [
    name,
    String(c.rows),
    String(c.requests),
    ...(['done', 'incomplete', 'flagged', 'failed'] as const).map((k) => String(c.windows[k] ?? 0)),
  ]);
  const q429 = Object.entries(s.http429ByBucket).filter(([, n]) => n > 0);
  return [
    `run ${s.run_id}: ${s.outcome.toUpperCase()} in ${fmt(s.ended_ms - s.started_ms)} — ${s.requests} requests, ${s.retries} retries` +
      (q429.length ? `, 429s: ${q429.map(([b, n]) => `${b}=${n}`).join(' ')}` : ', no 429s'),
    '',
    rows.length
      ? table([
          // the last four count windows (a stream's day or month of one vehicle or of the fleet), not rows
          ['', '', '', 'windows', 'windows', 'windows', 'windows'],
          ['stream', 'rows', 'requests', 'done', 'incomplete', 'flagged', 'failed'],
          ...rows,
        ])
      : 'no stream ran',
    ...(s.skipped?.length
      ? [
          '',
          'skipped (not a failure; each run asks once and resumes the stream when it answers):',
          ...s.skipped.map((k) => `  ${k.stream}: ${k.endpoint} is ${ACCESS_WORDS[k.state]}`),
        ]
      : []),
    ...(s.errors.length
      ? [
          '',
          'failures:',
          ...s.errors
            .slice(0, 10)
            // a failure of the run itself (credentials, the API down) has no stream, scope or window
            .map(
              (e) =>
                `  ${e.stream === '*' ? 'the run' : `${e.stream} ${e.scope} ${localWindow(e.window, s.zone)}`}: ${e.reason}`,
            ),
        ]
      : []),
  ].join('\n');
}

/** A one-line progress bar redrawn on a terminal. */
export function progressPrinter(write: (t: string) => void): (p: SyncProgress) => void {
  const state = new Map<string, SyncProgress>();
  return (p) => {
    state.set(p.stream, p);
    const done = [...state.values()].reduce((a, b) => a + b.done, 0);
    const total = [...state.values()].reduce((a, b) => a + b.total, 0);
    const width = 30;
    const fill = total ? Math.round((done / total) * width) : 0;
    write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${total} windows (${p.stream})   `);
  };
}
