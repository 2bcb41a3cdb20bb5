/**
 * A nightly `sync` that fails fast and says how (issue 13), the real CLI against the simulator
 * over HTTP: a wrong password stops after the first refused request; an API that goes down
 * mid-run stops within the circuit breaker's bound with one short summary; 429s on every 3rd
 * request end with exit 0 and the same database as a clean run; a file-size limit (EFBIG, via
 * `ulimit -f` in the child) stops the run, and the next run with room fills the gap.
 *
 * The runs whose exit status, stderr or limits are shown are child processes; the reference, the
 * runs that fill a gap and the one that prepares the EFBIG database go through `main` in this
 * process (the same command; what they show is the database they leave).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import { addDays, localDate } from '../../src/time.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { CLI, cliEnv, runCli, spawnCli, type CliResult } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

const ZONE = 'Africa/Johannesburg';
const ACCOUNT = 'nightly';
const FAILURES = 20;
const CONCURRENCY = 16;
const LIMIT_BYTES = 128 * 1024;
let sim: SimulatorHandle;
let dir: string;
let firstDay: string;
let lastDay: string;
let reference: Record<string, string>;

beforeAll(async () => {
  const today = localDate(Date.now(), ZONE);
  const fleet = generateFleet({
    seed: 11,
    vehicles: 6,
    days: 30,
    timezone: ZONE,
    endDay: addDays(today, -10),
  });
  firstDay = localDate(fleet.startMs, ZONE);
  lastDay = localDate(fleet.endMs - 1, ZONE);
  sim = await startSimulator({ fleet, windowMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-failfast-'));
  const clean = await syncHere('clean.duckdb');
  expect(clean.code, clean.stderr).toBe(0);
  reference = await dumpDatabase(join(dir, 'clean.duckdb'));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = (db: string, extra: Record<string, string> = {}) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: ZONE,
  FLEETSYNC_ACCOUNT: ACCOUNT,
  FLEETSYNC_DB: join(dir, db),
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  FLEETSYNC_CONCURRENCY: String(CONCURRENCY),
  FLEETSYNC_BREAKER_FAILURES: String(FAILURES),
  ...extra,
});
const args = () => ['sync', '--from', firstDay, '--to', lastDay];
const sync = (db: string, extra: Record<string, string> = {}) => runCli(args(), env(db, extra));
/** The same sync through `main` in this process, where the process is not what is shown. */
const syncHere = (db: string) => runMain(env(db), ...args());
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

async function runRow(db: string) {
  const d = await openDatabase(join(dir, db));
  const con = await d.connect();
  try {
    return (
      await con.runAndReadAll('SELECT outcome, errors FROM runs ORDER BY started_at DESC LIMIT 1')
    ).getRowObjectsJS()[0] as { outcome: string; errors: string };
  } finally {
    con.closeSync();
    d.close();
  }
}

async function expectReference(db: string) {
  const dump = await dumpDatabase(join(dir, db));
  for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
}

describe('refused credentials', () => {
  it('a wrong password: exit 1 after the first refused request, saying so once', async () => {
    sim.resetStats();
    const r = await sync('wrong.duckdb', { FLEET_PASSWORD: 'not-the-password' });
    expect(r.code, r.stderr).toBe(1);
    // The simulator saw one request, and refused it: nothing more was tried.
    expect(sim.stats().unauthorized).toBe(1);
    expect(sim.stats().total).toBe(1);
    expect(r.stderr).toMatch(
      /the API refused the credentials for account nightly \(HTTP 401 on GET \/vehicles/,
    );
    expect(r.stderr).not.toContain('not-the-password');
    expect(lines(r.stderr).filter((l) => /error/.test(l))).toHaveLength(1);
    const row = await runRow('wrong.duckdb');
    expect(row.outcome).toBe('failed');
    expect(JSON.parse(row.errors)[0].reason).toMatch(/E_AUTH.*refused the credentials for account nightly/);
  }, 60_000);
});

describe('the API goes down mid-run', () => {
  it(`stops within ${FAILURES} failed requests (+ those in flight) with exit 1 and one summary`, async () => {
    sim.resetStats();
    // Slow answers, so the run is still going when the API goes down.
    sim.setFaults({ latencyMs: 40 });
    const child = spawnCli(args(), env('down.duckdb'));
    const at = { fault: 0 };
    let r: CliResult;
    try {
      // Down in the broad part of the run (every stream's units in flight), past the odometer
      // pulled first: there the 20 failures in a row come before any one request gives up.
      await child.waitFor(/ info {2}stream .*stream=odometer /);
      const from = sim.stats().total;
      while (sim.stats().total < from + 10) await new Promise((w) => setTimeout(w, 10));
      // As slow as before: the answers of requests sent before the outage (200s) then come before
      // the 503s of those sent after it, as on the wire. Answered at once, a late 200 broke the
      // run of failures and the breaker counted again (seen: 43 requests after the fault, load 27).
      sim.setFaults({ latencyMs: 40, serverErrorEvery: 1, serverErrorStatus: 503 });
      at.fault = sim.stats().total;
    } finally {
      r = await child.exited;
      sim.setFaults({});
    }
    expect(r.code, r.stderr).toBe(1);
    const after = sim.stats().total - at.fault;
    expect(after).toBeGreaterThanOrEqual(FAILURES);
    // The breaker opens at the 20th failure; only requests already on the wire (at most one per
    // connection slot) are answered after it.
    expect(after).toBeLessThanOrEqual(FAILURES + CONCURRENCY);
    expect(r.stderr).toMatch(
      /answered nothing but connection errors, timeouts or 5xx for 20 requests in a row \(FLEETSYNC_BREAKER_FAILURES=20\); last: .*HTTP 503/,
    );
    // One short summary: the start, the plan, at most a line per stream, the stop and the end —
    // not a line per failed request or retry (there were at least 20 of those).
    expect(lines(r.stderr).length).toBeLessThanOrEqual(BUILTIN_STREAMS.length + 4);
    expect(lines(r.stderr).filter((l) => / (warn|error) /.test(l))).toHaveLength(1);
    expect(r.stdout).toMatch(/FAILED/);
    const row = await runRow('down.duckdb');
    expect(row.outcome).toBe('failed');
    expect(JSON.parse(row.errors)[0].reason).toMatch(/E_API_DOWN/);
    // What came in before the API went down is kept; the next run fills the rest.
    const again = await syncHere('down.duckdb');
    expect(again.code, again.stderr).toBe(0);
    await expectReference('down.duckdb');
  }, 120_000);
});

describe('429 on every 3rd request', () => {
  it('ends with exit 0 and the same database as a clean run', async () => {
    sim.resetStats();
    sim.setFaults({ rateLimitEvery: 3, rateLimitHeaders: 'missing' });
    let r: CliResult;
    try {
      r = await sync('every3rd.duckdb', { FLEETSYNC_LOG_LEVEL: 'debug', FLEETSYNC_LOG_FORMAT: 'json' });
    } finally {
      sim.setFaults({});
    }
    expect(r.code, r.stderr).toBe(0);
    const st = sim.stats();
    expect(st.faults.rate_limit).toBeGreaterThan(30);
    // FLEETSYNC_LOG_FORMAT=json: every stderr line is one JSON object.
    const log = lines(r.stderr).map((l) => JSON.parse(l) as { level: string; msg: string; n429?: number });
    expect(log.filter((l) => l.msg === 'api 429: bucket paused')).toHaveLength(st.faults.rate_limit);
    expect(log.filter((l) => l.msg === 'window').every((l) => l.level === 'debug')).toBe(true);
    expect(log.filter((l) => l.msg === 'stream' && l.level === 'info').length).toBeGreaterThanOrEqual(5);
    await expectReference('every3rd.duckdb');
  }, 120_000);
});

describe('a file-size limit (ulimit -f)', () => {
  it('EFBIG stops the run with exit 1 naming the storage; the next run fills the gap', async () => {
    const first = await runMain(
      env('efbig.duckdb'),
      'sync',
      '--from',
      firstDay,
      '--to',
      addDays(firstDay, 2),
    );
    expect(first.code, first.stderr).toBe(0);
    expect(statSync(join(dir, 'efbig.duckdb')).size).toBeGreaterThan(LIMIT_BYTES);
    // ulimit -f counts 512-byte blocks. The database opens (reading is not limited) and the
    // run starts; its write-ahead log reaches the limit while the windows are written.
    const blocks = LIMIT_BYTES / 512;
    const r = await new Promise<CliResult>((resolve, reject) => {
      const child = spawn(
        'sh',
        [
          '-c',
          `ulimit -f ${blocks}; exec "$0" --import tsx "$1" sync --from "$2" --to "$3"`,
          process.execPath,
          CLI,
          firstDay,
          lastDay,
        ],
        { env: cliEnv(env('efbig.duckdb')), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /sync stopped .*the storage under the database failed \(EFBIG\).*File too large/,
    );
    expect(r.stdout).toMatch(/FAILED/);
    const again = await syncHere('efbig.duckdb');
    expect(again.code, again.stderr).toBe(0);
    await expectReference('efbig.duckdb');
  }, 120_000);
});
