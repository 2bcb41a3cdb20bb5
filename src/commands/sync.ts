/**
 * `fleetsync sync [--from D] [--to D] [--streams a,b] [--plan]`: one run, then exit.
 * Progress on stderr (a bar on a terminal, one line per window otherwise); the summary on stdout.
 * Exit 0 only when every window succeeded; 3 when some failed (everything finished is kept).
 */
import { createFleetClient } from '../api/client.ts';
import { loadConfig, secretsOf } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { openDatabase } from '../store/db.ts';
import { planSync, runSync } from '../sync/run.ts';
import { formatPlan, formatSummary, progressPrinter } from '../sync/report.ts';
import { STREAMS, type StreamName } from '../sync/types.ts';
import { isCalendarDay } from '../time.ts';
import type { Command } from './command.ts';

export function parseSyncArgs(values: Record<string, string | boolean | undefined>) {
  const problems: string[] = [];
  const day = (name: 'from' | 'to') => {
    const v = values[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !isCalendarDay(v))
      problems.push(`--${name} must be a calendar day YYYY-MM-DD (got ${JSON.stringify(v)})`);
    return typeof v === 'string' ? v : undefined;
  };
  const fromDay = day('from');
  const toDay = day('to');
  if (fromDay && toDay && isCalendarDay(fromDay) && isCalendarDay(toDay) && toDay < fromDay)
    problems.push(`--to ${toDay} is before --from ${fromDay}`);
  let streams: StreamName[] | undefined;
  if (typeof values.streams === 'string') {
    const list = values.streams
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = list.filter((s) => !(STREAMS as readonly string[]).includes(s));
    if (bad.length || list.length === 0)
      problems.push(
        `--streams: unknown stream ${bad.map((b) => JSON.stringify(b)).join(', ') || '(empty)'}; streams are ${STREAMS.join(', ')}`,
      );
    streams = list as StreamName[];
  }
  if (problems.length) throw new FleetsyncError('E_USAGE', problems.join('\n'));
  return { fromDay, toDay, streams, planOnly: values.plan === true, json: values.json === true };
}

export const syncCommand: Command = {
  summary: 'One sync run of the Fleet API into the DuckDB file, then exit.',
  usage: 'fleetsync sync [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--streams a,b] [--plan] [--json]',
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    streams: { type: 'string' },
    plan: { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run({ values }, ctx) {
    const args = parseSyncArgs(values);
    const config = loadConfig(ctx.env, { needApi: !args.planOnly });
    const tty = process.stderr.isTTY === true && !ctx.env.CI;
    const log = createLogger({
      level: tty && config.logLevel === 'info' ? 'warn' : config.logLevel,
      secrets: secretsOf(config),
      write: (line) => ctx.stderr(line + '\n'),
    });
    const db = await openDatabase(config.dbPath);
    const client = createFleetClient({
      baseUrl: config.baseUrl ?? 'http://127.0.0.1:0/rest',
      username: config.username ?? '',
      password: config.password ?? '',
      timezone: config.timezone,
      windowMs: config.rateWindowMs,
      log,
    });
    const deps = {
      db,
      client,
      account: config.account,
      timezone: config.timezone,
      baseUrl: config.baseUrl ?? '',
      windowMs: config.rateWindowMs,
      log,
      signal: ctx.stopSignal,
      ...(config.changelogUrl ? { changelogUrl: config.changelogUrl } : {}),
      onProgress: tty ? progressPrinter((t) => ctx.stderr(t)) : undefined,
    };
    try {
      const req = {
        fromDay: args.fromDay,
        toDay: args.toDay,
        streams: args.streams,
        trigger: 'cli' as const,
      };
      if (args.planOnly) {
        const plan = await planSync(deps, req);
        ctx.stdout((args.json ? JSON.stringify(plan, null, 2) : formatPlan(plan)) + '\n');
        return 0;
      }
      const summary = await runSync(deps, req);
      if (tty) ctx.stderr('\n');
      ctx.stdout((args.json ? JSON.stringify(summary, null, 2) : formatSummary(summary)) + '\n');
      return summary.outcome === 'ok' ? 0 : summary.outcome === 'partial' ? 3 : 1;
    } finally {
      await client.close();
      db.close();
    }
  },
};
