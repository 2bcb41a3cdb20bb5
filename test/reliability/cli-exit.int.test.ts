/**
 * What a scheduler (cron, systemd, CI) sees from the real CLI: exit 3 when some windows failed
 * and the next run fills them; exit 2 with every problem named and nothing started for bad
 * configuration or arguments; exit 4 naming the process and the server's API when another
 * process holds the database.
 *
 * A child process where the process is what is shown (its exit status, its stderr, a port, a
 * lock held by another process); the command in this process (`main`, the same code the process
 * runs and whose return is its exit status) for the references and for more messages of a kind
 * a child already showed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { openDatabase } from '../../src/store/db.ts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';
import { runCli, spawnCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 5, days: 20 } });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-cli-'));
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const apiEnv = (dbPath: string): Record<string, string> => ({
  FLEET_BASE_URL: h.sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: h.fleet.timezone,
  FLEETSYNC_ACCOUNT: ACCOUNT,
  FLEETSYNC_DB: dbPath,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
});

describe('a partial sync', () => {
  it('exits 3 naming the failed windows and their reason; the next run exits 0 and fills the gap', async () => {
    const dbPath = join(dir, 'partial.duckdb');
    const args = ['sync', '--from', h.firstDay, '--to', h.lastDay];
    // The reference: the same sync without faults, in this process (on the real clock, as the CLI).
    const clean = await runMain(apiEnv(join(dir, 'clean.duckdb')), ...args);
    expect(clean.code, clean.stderr).toBe(0);
    const reference = await dumpDatabase(join(dir, 'clean.duckdb'));
    h.sim.setFaults({ fieldFault: { kind: 'trip', field: 'trip_id', renameTo: 'tripId' } });
    let first;
    try {
      first = await runCli(args, apiEnv(dbPath));
    } finally {
      h.sim.setFaults({});
    }
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout).toMatch(/PARTIAL/);
    expect(first.stdout).toMatch(/failures:\n {2}trips .*trip/);
    expect(first.stderr).toMatch(/warn +window failed .*stream=trips/);
    // The next run fills the gap (in this process: the child above showed the exit status).
    const second = await runMain(apiEnv(dbPath), ...args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/: OK /);
    const dump = await dumpDatabase(dbPath);
    for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
  }, 60_000);
});

describe('bad configuration: exit 2, every problem named, nothing started', () => {
  it('serve with a bad country, zone, schedule and port opens no port and creates no database', async () => {
    const dbPath = join(dir, 'never', 'serve.duckdb');
    const r = await runCli(['serve'], {
      FLEET_COUNTRY: 'xx',
      FLEET_USERNAME: 'demo',
      FLEET_PASSWORD: 'demo-main',
      FLEET_TIMEZONE: 'Mars/Olympus',
      FLEETSYNC_SCHEDULE: 'every night',
      FLEETSYNC_PORT: '99999',
      FLEETSYNC_DB: dbPath,
    });
    expect(r.code).toBe(2);
    for (const v of ['FLEET_COUNTRY', 'FLEET_TIMEZONE', 'FLEETSYNC_SCHEDULE', 'FLEETSYNC_PORT'])
      expect(r.stderr).toContain(v);
    expect(r.stdout).not.toMatch(/dashboard/);
    expect(existsSync(dbPath)).toBe(false);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  }, 30_000);

  it('serve beyond loopback without a token, and a port that is not a number', async () => {
    const dbPath = join(dir, 'never2', 'serve.duckdb');
    // In this process: the child above showed serve's refusal as a process.
    const r = await runMain(
      { FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_PORT: 'eighty', FLEETSYNC_DB: dbPath },
      'serve',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEETSYNC_TOKEN: required when FLEETSYNC_HOST \(0\.0\.0\.0\)/);
    expect(r.stderr).toMatch(/FLEETSYNC_PORT: must be a port number/);
    expect(r.stdout).toBe('');
    expect(existsSync(dbPath)).toBe(false);
  }, 30_000);

  it('sync without a password or region names both and sends nothing', async () => {
    const dbPath = join(dir, 'never3', 'sync.duckdb');
    h.sim.resetStats();
    const r = await runMain({ FLEET_USERNAME: 'demo', FLEETSYNC_DB: dbPath }, 'sync');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEET_PASSWORD: required/);
    expect(r.stderr).toMatch(/FLEET_COUNTRY: set a country code/);
    expect(existsSync(dbPath)).toBe(false);
    expect(h.sim.stats().total).toBe(0);
  }, 30_000);
});

describe('bad arguments: exit 2 with a clear message, nothing opened', () => {
  const cases: [string[], RegExp][] = [
    [['sync', '--from', '2026-02-30'], /--from must be a calendar day YYYY-MM-DD \(got "2026-02-30"\)/],
    [['sync', '--from', '2026-04-10', '--to', '2026-04-01'], /--to 2026-04-01 is before --from 2026-04-10/],
    [['sync', '--streams', 'trips,telepathy'], /unknown stream "telepathy"; streams are /],
    [['sync', '--frm', '2026-04-01'], /Unknown option '--frm'/],
    [['export', 'mileage', '--from', '04/01/2026'], /--from: must be a calendar day YYYY-MM-DD/],
    [['export', 'mileage', '--from', '2026-04-10', '--to', '2026-04-01'], /--to: 2026-04-01 is before from/],
    [['export', 'payroll'], /unknown report "payroll"; valid reports: /],
    [['export', 'mileage', '--format', 'xls'], /--format must be one of csv, parquet, arrow, xlsx/],
    [['export', 'mileage', '--month', '2026-13'], /--month: must be a month YYYY-MM/],
    [['export', 'tolls', '--vehicle', "1' OR 1=1"], /--vehicle: must be a vehicle id/],
  ];
  const dbPathFor = (args: string[]) =>
    join(dir, `args-${args.join('_').replace(/\W+/g, '')}`, 'fleet.duckdb');
  // The command in this process: its return is the process's exit status (shown below).
  it.each(cases)(
    'fleetsync %j',
    async (args, message) => {
      const dbPath = dbPathFor(args);
      const r = await runMain(apiEnv(dbPath), ...args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(existsSync(dbPath), 'no database file is created').toBe(false);
    },
    30_000,
  );

  it('as a process (sync and export): exit status 2, and on stderr the message the command gave', async () => {
    for (const [args, message] of [cases[0]!, cases[4]!]) {
      const dbPath = dbPathFor(args);
      const r = await runCli(args, apiEnv(dbPath));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toBe((await runMain(apiEnv(dbPath), ...args)).stderr);
      expect(r.stdout).toBe('');
      expect(existsSync(dbPath), 'no database file is created').toBe(false);
    }
  }, 30_000);
});

describe('an export that cannot be written', () => {
  it('to a directory that does not exist: exit 1 saying why, nothing left behind', async () => {
    const dbPath = join(dir, 'export-target.duckdb');
    (await openDatabase(dbPath)).close(); // an existing (empty) database: only the target is wrong
    const r = await runCli(['export', 'mileage', '--out', join(dir, 'no-such-dir', 'm.csv')], apiEnv(dbPath));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot write the mileage report to .*no-such-dir\/m\.csv: .*No such file or directory/,
    );
    expect(existsSync(join(dir, 'no-such-dir'))).toBe(false);
  }, 30_000);
});

describe('one process owns the database', () => {
  it('sync, export, status, changes and send-report --list exit 4 naming the running server (PID) and its API', async () => {
    const dbPath = join(dir, 'owned.duckdb');
    const serve = spawnCli(['serve'], { ...apiEnv(dbPath), FLEETSYNC_PORT: '0' });
    try {
      await serve.waitFor(/fleetsync dashboard: http/);
      for (const args of [
        ['sync', '--from', h.firstDay, '--to', h.lastDay],
        ['export', 'mileage', '--out', join(dir, 'owned.csv')],
        ['status'],
        ['changes'],
        ['send-report', '--list'],
      ]) {
        // status as a process (what a scheduler sees); sync and export in this process, which
        // meets the server's lock as any other process does.
        const r =
          args[0] === 'status' ? await runCli(args, apiEnv(dbPath)) : await runMain(apiEnv(dbPath), ...args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(4);
        expect(r.stderr).toContain(`in use by another fleetsync process (PID ${serve.child.pid})`);
        expect(r.stderr).toContain('POST /api/sync');
        expect(r.stderr).toContain('GET /api/status');
        expect(r.stderr).not.toMatch(/\n\s+at /);
        // a command with its own way through the server names it
        if (args[0] === 'changes') expect(r.stderr).toContain('GET /api/changes lists its flagged changes');
        if (args[0] === 'send-report')
          expect(r.stderr).toContain('GET /api/subscriptions on the running server');
      }
      expect(existsSync(join(dir, 'owned.csv'))).toBe(false);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 60_000);
});

describe('serve on a port that is taken', () => {
  it('exits 2 saying the port is in use and naming FLEETSYNC_PORT, not a bare EADDRINUSE', async () => {
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as AddressInfo).port;
    try {
      const r = await runCli(['serve'], {
        ...apiEnv(join(dir, 'port-taken.duckdb')),
        FLEETSYNC_PORT: String(port),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`port ${port} is already in use on 127.0.0.1 (FLEETSYNC_PORT)`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  }, 60_000);
});
