/**
 * The command line. The only place that turns errors into exit codes:
 *   0 ok · 1 failure · 2 bad usage or configuration · 3 partial sync (some windows failed)
 *   4 database locked by another process · 75 the worker's Postgres unreachable
 *   75 transient: the worker's queue database (Postgres) is unreachable; restart later (EX_TEMPFAIL)
 * Each command lives in its own module and is imported only when used.
 */
import { parseArgs } from 'node:util';
import { FleetsyncError, describeError, isFleetsyncError, type ErrorCode } from './errors.ts';
import type { Command, CommandContext } from './commands/command.ts';
import { loadEnvFile } from './env-file.ts';
import { applyServingAllocator } from './allocator.ts';
import { applySyncHeap } from './heap.ts';
import { STOPPED_EXIT_MS } from './defaults.ts';

/** Command table: one module per command, imported only when used. */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  demo: async () => (await import('./commands/demo.ts')).demoCommand,
  serve: async () => (await import('./commands/serve.ts')).serveCommand,
  sync: async () => (await import('./commands/sync.ts')).syncCommand,
  export: async () => (await import('./commands/export.ts')).exportCommand,
  'send-report': async () => (await import('./commands/send-report.ts')).sendReportCommand,
  simulate: async () => (await import('./commands/simulate.ts')).simulateCommand,
  status: async () => (await import('./commands/status.ts')).statusCommand,
  changes: async () => (await import('./commands/changes.ts')).changesCommand,
  worker: async () => (await import('./commands/worker.ts')).workerCommand,
  service: async () => (await import('./commands/service.ts')).serviceCommand,
};

export const EXIT: Partial<Record<ErrorCode, number>> = {
  E_USAGE: 2,
  E_CONFIG: 2,
  E_BAD_REQUEST: 2,
  E_SYNC_PARTIAL: 3,
  E_DB_LOCKED: 4,
  E_QUEUE_DOWN: 75,
};

/** The top-level --help: every command of COMMANDS (a test holds it to that) and every export format. */
export function help(): string {
  return [
    'fleetsync — Fleet API telematics history in DuckDB, with reports you can trust',
    '',
    'usage: fleetsync <command> [options]     (from a checkout: npm run -s fleetsync -- <command>)',
    '',
    'commands:',
    '  demo         simulator → sync → dashboard, no configuration (npm start): [--fresh]',
    '  serve        dashboard + JSON API + scheduled syncs (FLEETSYNC_SCHEDULE); --lake DIR: read-only over a Parquet lake',
    '  sync         one sync run: [--from D] [--to D] [--streams a,b] [--plan] [--json] [--account NAME];',
    '               sync --rezone moves the account to FLEET_TIMEZONE; sync --rebuild-facts computes the daily facts again',
    '  export       write a report: <report> [--from D] [--to D] [--month YYYY-MM] [--vehicle ID] [--department NAME]',
    '               [--format csv|xlsx|parquet|arrow] [--headers machine|human] [--out FILE]',
    '  send-report  e-mail a report now: <subscription>, --report … --period …, --month YYYY-MM (pack); --list',
    '  simulate     the Fleet API simulator alone: [--port N] [--seed N] [--vehicles N] [--days N] [--timezone Z]',
    '  status       "complete through", last runs, coverage per stream, flagged and failed windows: [--runs N] [--json]',
    '  worker       take sync jobs from a Postgres queue (FLEETSYNC_QUEUE_URL) and publish the Parquet lake: [--enqueue]',
    '  changes      check the API release notes for changes to endpoints the sync uses: [--feed URL] [--ack]',
    '  service      record a service done: service done --vehicle ID|REG --date D --odometer KM (service_due counts from it)',
    '',
    'exit codes: 0 ok · 1 failure · 2 bad usage or configuration · 3 partial sync · 4 database locked · 75 worker: Postgres unreachable (restartable)',
    '',
    'fleetsync <command> --help shows the options of a command.',
  ].join('\n');
}

export async function main(given: CommandContext): Promise<number> {
  // The one place the clock is defaulted: every command and what it builds take it from here.
  const ctx = { ...given, now: given.now ?? Date.now };
  const [name, ...rest] = ctx.argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    ctx.stdout(help() + '\n');
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    ctx.stderr(`fleetsync: unknown command ${JSON.stringify(name)}\n\n${help()}\n`);
    return 2;
  }
  try {
    const cmd = await load();
    if (rest.includes('--help') || rest.includes('-h')) {
      ctx.stdout(`${cmd.summary}\n\nusage: ${cmd.usage}\n`);
      return 0;
    }
    let values: Record<string, string | boolean | undefined>;
    let positionals: string[];
    try {
      const parsed = parseArgs({ args: rest, options: cmd.options, allowPositionals: true, strict: true });
      if (
        cmd.options &&
        Object.keys(cmd.options).length === 0 &&
        parsed.positionals.length &&
        name !== 'export'
      )
        throw new Error(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
      values = parsed.values as Record<string, string | boolean | undefined>;
      positionals = parsed.positionals;
    } catch (e) {
      throw new FleetsyncError('E_USAGE', `${(e as Error).message}\nusage: ${cmd.usage}`);
    }
    const code = await cmd.run({ values, positionals }, ctx);
    return code ?? 0;
  } catch (e) {
    const code = isFleetsyncError(e) ? (EXIT[e.code] ?? 1) : 1;
    ctx.stderr(`fleetsync ${name}: ${isFleetsyncError(e) ? e.message : describeError(e)}\n`);
    if (!isFleetsyncError(e) && ctx.env.FLEETSYNC_LOG_LEVEL === 'debug' && e instanceof Error)
      ctx.stderr(`${e.stack}\n`);
    return code;
  }
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    // `.env` (or FLEETSYNC_ENV_FILE) fills what the environment does not set; see env-file.ts.
    loadEnvFile({ env: process.env, cwd: process.cwd() });
    applySyncHeap(process.argv[2], process.env); // FLEETSYNC_SYNC_HEAP, see heap.ts
    applyServingAllocator(process.argv[2], process.env); // before DuckDB loads, see allocator.ts
    process.exitCode = await main({
      argv: process.argv.slice(2),
      env: process.env,
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      stopSignal: controller.signal,
    });
    // A command asked to stop has ended: what it left behind and logged (a mail server that does
    // not answer, serve's STOP_WORK_GIVE_UP_MS) does not keep the process alive. The timer keeps
    // nothing alive itself, so a process with nothing left exits at once.
    if (controller.signal.aborted) setTimeout(() => process.exit(), STOPPED_EXIT_MS).unref();
  } catch (e) {
    // main() turns every error of a command into its exit code; what reaches here is the env file.
    process.stderr.write(`fleetsync: ${isFleetsyncError(e) ? e.message : describeError(e)}\n`);
    process.exitCode = isFleetsyncError(e) ? (EXIT[e.code] ?? 1) : 1;
  }
}
