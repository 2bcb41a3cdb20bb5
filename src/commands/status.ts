/**
 * `fleetsync status`: per account what is complete (the last complete local day), last runs,
 * coverage per stream, flagged and failed windows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadConfig } from '../config.ts';
import { DEFAULT_TIMEZONE } from '../defaults.ts';
import { reportMeta, resolveZone } from '../reports/run.ts';
import { accountsIn } from '../store/accounts.ts';
import { FleetsyncError } from '../errors.ts';
import { openDatabase } from '../store/db.ts';
import { queryJs } from '../store/queries.ts';
import { formatIsoInZone } from '../time.ts';
import type { Command } from './command.ts';

const cell = (v: unknown, zone: string): string =>
  v === null || v === undefined
    ? '-'
    : v instanceof Date
      ? formatIsoInZone(v.getTime(), zone).slice(0, 16)
      : String(v);

function table(head: string[], rows: unknown[][], zone: string): string {
  const text = [head, ...rows.map((r) => r.map((c) => cell(c, zone)))];
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

const JSON_COLUMNS = new Set(['http_429', 'errors']);

function jsonValue(key: string, v: unknown, zone: string): unknown {
  if (v instanceof Date) return formatIsoInZone(v.getTime(), zone);
  if (typeof v === 'bigint') return Number(v);
  if (JSON_COLUMNS.has(key) && typeof v === 'string') return JSON.parse(v) as unknown;
  return v;
}

/** "Complete through" of every account, in its recorded zone (the same figure as the API and exports). */
async function completeThroughOf(con: DuckDBConnection, now: () => number) {
  const out = [];
  for (const account of await accountsIn(con)) {
    const zone = await resolveZone(con, account, DEFAULT_TIMEZONE);
    const m = await reportMeta(con, { account, zone, nowMs: now() });
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

export const statusCommand: Command = {
  summary: 'Last runs, coverage per stream, flagged and failed windows.',
  usage: 'fleetsync status [--runs N] [--json]',
  options: { runs: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, ctx) {
    const config = loadConfig(ctx.env);
    const n = values.runs === undefined ? 10 : Number(values.runs);
    if (!Number.isInteger(n) || n < 1 || n > 1000)
      throw new FleetsyncError('E_USAGE', '--runs must be a whole number from 1 to 1000');
    const db = await openDatabase(config.dbPath, { mustExist: true });
    const con = await db.connect();
    try {
      const zone = config.timezone;
      const runs = await queryJs(con, 'status/runs', [n]);
      const cov = await queryJs(con, 'status/coverage');
      const bad = await queryJs(con, 'status/problem_windows', [50]);
      const failed = cov.reduce((a, r) => a + Number(r.failed), 0);
      const through = await completeThroughOf(con, ctx.now ?? Date.now);
      if (values.json === true) {
        const json = (rows: Record<string, unknown>[]) =>
          rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonValue(k, v, zone)])));
        ctx.stdout(
          JSON.stringify(
            {
              database: config.dbPath,
              zone,
              complete_through: through,
              runs: json(runs),
              coverage: json(cov),
              problem_windows: json(bad),
            },
            null,
            2,
          ) + '\n',
        );
        return failed > 0 ? 3 : 0;
      }
      const out: string[] = [`database ${config.dbPath} (times in ${zone})`, ''];
      for (const t of through)
        out.push(
          `account ${t.account}: ${t.complete_through_text}${t.complete_through_day ? ` — ${t.complete_through_day}` : ''} (${t.zone})`,
        );
      if (through.length) out.push('');
      out.push('last runs:');
      out.push(
        runs.length
          ? table(
              ['run', 'account', 'trigger', 'outcome', 'started', 'seconds', 'requests', 'retries', 'range'],
              runs.map((r) => [
                r.run_id,
                r.account,
                r.trigger,
                r.outcome,
                r.started_at,
                (Number(r.duration_ms) / 1000).toFixed(1),
                r.requests,
                r.retries,
                `${cell(r.range_from, zone)}..${cell(r.range_to, zone)}`,
              ]),
              zone,
            )
          : '  (no runs yet: run `fleetsync sync`)',
      );
      out.push('', 'coverage per stream:');
      out.push(
        cov.length
          ? table(
              ['account', 'stream', 'from', 'to', 'done', 'incomplete', 'flagged', 'failed', 'last fetched'],
              cov.map((r) => [
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
              zone,
            )
          : '  (nothing synced yet)',
      );
      out.push('', `flagged and failed windows${bad.length === 50 ? ' (first 50)' : ''}:`);
      out.push(
        bad.length
          ? table(
              ['status', 'stream', 'vehicle', 'from', 'to', 'reason'],
              bad.map((r) => [
                r.status,
                r.stream,
                r.registration ?? r.scope,
                r.window_start,
                r.window_end,
                r.reason,
              ]),
              zone,
            )
          : '  none',
      );
      ctx.stdout(out.join('\n') + '\n');
      return failed > 0 ? 3 : 0;
    } finally {
      con.closeSync();
      db.close();
    }
  },
};
