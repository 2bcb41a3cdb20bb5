/**
 * `fleetsync status` beside a running `fleetsync serve` (real child processes): the server holds
 * the DuckDB file, so status asks its GET /api/status and prints the same report, with the exit
 * codes of the last run: 3 after a partial run whose vehicles snapshot failed (naming it), 0 after
 * a good run started through the server, 1 after a run the API refused (wrong password). A status
 * pointed at another port still exits 4 and says why. The verdict's rules are also checked alone below.
 *
 * The servers are child processes and so is the first `status` beside one (its exit status as a
 * process); the other runs go through `main` in this process, which meets the server's lock as
 * any other process does.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { verdictOf } from '../../src/status/report.ts';
import { addDays, localDate } from '../../src/time.ts';
import { runCli, spawnCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

const ZONE = 'Australia/Sydney';
let sim: SimulatorHandle;
let dir: string;
let today: string;

beforeAll(async () => {
  today = localDate(Date.now(), ZONE);
  const fleet = generateFleet({ seed: 5, vehicles: 3, days: 8, timezone: ZONE, endDay: addDays(today, -10) });
  sim = await startSimulator({ fleet, windowMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-status-serve-'));
}, 60_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const env = (dbPath: string, port: number) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: 'demo-main',
  FLEET_TIMEZONE: ZONE,
  FLEETSYNC_ACCOUNT: 'beside',
  FLEETSYNC_DB: dbPath,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  FLEETSYNC_PORT: String(port),
});

describe('status beside serve', () => {
  it('prints the server’s status with the exit code of the last run (3 partial, naming the failed snapshot; 1 failed; 0 ok)', async () => {
    const dbPath = join(dir, 'beside.duckdb');
    const port = await freePort();
    const e = env(dbPath, port);
    sim.setFaults({ fieldFault: { kind: 'vehicle', field: 'registration' } });
    const partial = await runMain(e, 'sync', '--from', addDays(today, -20), '--to', addDays(today, -12));
    sim.setFaults({});
    expect(partial.code, partial.stderr).toBe(3);
    const alone = await runMain(e, 'status');
    expect(alone.code, alone.stderr).toBe(3);
    expect(alone.stdout).toMatch(
      /snapshots that failed in the last run:\n.*\n\s*beside\s+vehicles\s+\S+\s+E_PAYLOAD/,
    );

    const serve = spawnCli(['serve'], e);
    try {
      await serve.waitFor(/fleetsync dashboard: http/);
      const beside = await runCli(['status'], e);
      expect(beside.code, beside.stderr).toBe(3);
      expect(beside.stdout).toContain(`as reported by the running server http://127.0.0.1:${port}`);
      // The same report as the file gave while nobody held it (only the source line differs).
      const body = (t: string) => t.split('\n').slice(1).join('\n');
      expect(body(beside.stdout)).toBe(body(alone.stdout));
      expect(beside.stdout).toMatch(/account beside: the vehicles snapshot failed in run \S+: E_PAYLOAD/);

      const json = JSON.parse((await runMain(e, 'status', '--json')).stdout) as {
        verdict: { exit_code: number; problems: string[] };
        failed_snapshots: { stream: string }[];
        runs: { outcome: string; errors: unknown; http_429: unknown }[];
      };
      expect(json.verdict.exit_code).toBe(3);
      expect(json.failed_snapshots.map((f) => f.stream)).toEqual(['vehicles']);
      expect(Array.isArray(json.runs[0]!.errors)).toBe(true); // objects, not JSON in a string
      expect(typeof json.runs[0]!.http_429).toBe('object');

      // /api/status answers objects.
      const st = (await (await fetch(`http://127.0.0.1:${port}/api/status`)).json()) as {
        last_run: { errors: unknown; windows_by_stream: unknown };
      };
      expect(Array.isArray(st.last_run.errors)).toBe(true);
      expect(st.last_run.windows_by_stream).toMatchObject({ vehicles: { failed: 1 } });
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }

    // A server whose password the API refuses: its run fails, and status beside it exits 1. Each
    // server on a port free when it starts (one freed by the server before can be taken meanwhile).
    const port2 = await freePort();
    const e2 = env(dbPath, port2);
    const refused = spawnCli(['serve'], { ...e2, FLEET_PASSWORD: 'not-the-password' });
    try {
      await refused.waitFor(/fleetsync dashboard: http/);
      const r = await fetch(`http://127.0.0.1:${port2}/api/sync`, {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(((await r.json()) as { outcome: string }).outcome).toBe('failed');
      const failed = await runMain(e2, 'status');
      expect(failed.code, failed.stdout + failed.stderr).toBe(1);
      expect(failed.stdout).toMatch(/account beside: the last run \S+ failed: .*refused the credentials/);
    } finally {
      refused.child.kill('SIGTERM');
      await refused.exited;
    }

    const port3 = await freePort();
    const e3 = env(dbPath, port3);
    const serve2 = spawnCli(['serve'], e3);
    try {
      await serve2.waitFor(/fleetsync dashboard: http/);
      // A good run through the server: status beside it exits 0.
      const sync = await fetch(`http://127.0.0.1:${port3}/api/sync`, {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(sync.status).toBe(200);
      expect(((await sync.json()) as { outcome: string }).outcome).toBe('ok');
      const ok = await runMain(e3, 'status');
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      expect(ok.stdout).toContain('ok: the last run of every account was ok');

      // Pointed at the wrong port: still the lock (exit 4), saying why the server was not asked.
      const other = await runMain({ ...e3, FLEETSYNC_PORT: String(await freePort()) }, 'status');
      expect(other.code).toBe(4);
      expect(other.stderr).toContain(`in use by another fleetsync process (PID ${serve2.child.pid})`);
      expect(other.stderr).toMatch(/No fleetsync server answered GET http:\/\/127\.0\.0\.1:\d+\/api\/status/);
    } finally {
      serve2.child.kill('SIGTERM');
      await serve2.exited;
    }
  }, 120_000);
});

describe('the status verdict', () => {
  const run = (outcome: string, errors: unknown = []) => ({ account: 'a', run_id: 'r1', outcome, errors });
  it('is 1 when a last run failed, 3 when partial, interrupted, a snapshot or a window failed, else 0', () => {
    expect(verdictOf([run('ok')], [], [{ account: 'a', stream: 'trips', failed: 0 }]).exit_code).toBe(0);
    const failed = verdictOf(
      [
        run('failed', [{ stream: '*', reason: 'E_AUTH: the API refused the credentials' }]),
        { ...run('partial'), account: 'b' },
      ],
      [],
      [],
    );
    expect(failed).toEqual({
      exit_code: 1,
      problems: [
        'account a: the last run r1 failed: E_AUTH: the API refused the credentials',
        'account b: the last run r1 was partial',
      ],
    });
    expect(verdictOf([run('interrupted')], [], []).exit_code).toBe(3);
    expect(
      verdictOf([run('ok')], [{ account: 'a', run_id: 'r1', stream: 'vehicles', reason: null }], [])
        .exit_code,
    ).toBe(3);
    expect(verdictOf([run('ok')], [], [{ account: 'a', stream: 'visits', failed: 2 }])).toEqual({
      exit_code: 3,
      problems: ['account a: 2 failed visits window(s)'],
    });
  });
});
