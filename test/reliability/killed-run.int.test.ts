/**
 * A sync that dies before it can say anything (SIGKILL, as an OOM kill or an abort inside DuckDB
 * would end it): it was recorded `running` in the state file beside the database before the
 * database was opened, with its last log line and last request time as it went. So the next
 * `status` names it unfinished with the last thing it logged and exits non-zero, the alerter
 * (serve's watchdog, the next sync) sends an alert, and a run started right after the kill waits
 * out the API's window after the killed run's last request: the simulator counts no genuine 429.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../src/alerts/alerter.ts';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { readOutcomes } from '../../src/outcome/outcomes.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { spawnCli, runCli } from '../helpers/cli-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, harnessCliEnv, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

const WINDOW_MS = 3000;
let h: Harness;
let hook: WebhookReceiver;
let env: Record<string, string>;

beforeAll(async () => {
  // The killed child runs on the real clock; so does everything here.
  h = await startHarness({ fleet: { vehicles: 12, days: 30 }, realClock: true, windowMs: WINDOW_MS });
  hook = await startWebhookReceiver();
  env = harnessCliEnv(h, {
    FLEETSYNC_DB: join(h.dir, 'killed.duckdb'),
    FLEETSYNC_RATE_WINDOW_MS: String(WINDOW_MS),
    FLEETSYNC_LOG_LEVEL: 'debug',
    FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks/killed`,
  });
}, 60_000);
afterAll(async () => {
  await hook?.close();
  await h?.close();
});

const genuine429 = () => Object.values(h.sim.stats().rateLimited).reduce((a, n) => a + n, 0);

/** When the last killed sync was killed: the next test's fresh database knows nothing of its sends. */
let killedAtMs = 0;

/** Starts a CLI sync into `dbPath` and SIGKILLs it while the EV energy stream (10 requests a window) sends. */
async function syncAndKill(dbPath: string) {
  const child = spawnCli(['sync', '--from', h.firstDay, '--to', h.lastDay], { ...env, FLEETSYNC_DB: dbPath });
  await child.waitFor(/ debug +window .*stream=ev_energy/);
  child.child.kill('SIGKILL');
  const killedAt = Date.now();
  expect((await child.exited).signal).toBe('SIGKILL');
  const o = readOutcomes(dbPath).accounts[ACCOUNT]!;
  killedAtMs = killedAt;
  expect(o).toMatchObject({ state: 'running', pid: child.child.pid, recorded: false });
  return { o, killedAt, stderr: child.stderr() };
}

describe('a sync killed with SIGKILL', () => {
  it('is named unfinished by status with the last thing it logged, and alerts', async () => {
    const { o, stderr } = await syncAndKill(env.FLEETSYNC_DB!);
    // A line it logged is kept: the last one written (at most 200 ms after it was logged), so at
    // the kill it may be the window line waited for or any line after it — another stream's
    // `info stream` summary too — whatever the level.
    expect(o.last_log).toMatch(/^\S+Z (debug|info|warn|error) /);
    expect(stderr).toContain(o.last_log!);

    // The next process: `status` says what happened, whatever the runs table says ('running').
    const status = await runCli(['status'], env);
    expect(status.code).toBe(1);
    const said = status.stdout + status.stderr;
    expect(said).toContain(`run ${o.run_id}`);
    expect(said).toContain('ended before the run finished');
    expect(said).toContain(`the last thing it logged: ${o.last_log}`);

    // The alerter (serve's watchdog timer, the next sync) finds it: one alert naming it.
    const db = await openDatabase(env.FLEETSYNC_DB!);
    try {
      for (let i = 0; i < 2; i++) {
        const alerter = createAlerter({ now: Date.now, db, config: loadConfig(env), log: memoryLogger() });
        await alerter.check();
        alerter.close();
      }
    } finally {
      db.close();
    }
    expect(hook.posts.map((p) => p.body.text)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^fleetsync: the sync of account test failed: the process \\(pid ${o.pid}\\) ended before`,
        ),
      ),
    ]);
    expect(hook.posts[0]!.body.text).toContain(o.last_log!);
  }, 120_000);

  it('a run started right after the kill waits out the window of its last request: no genuine 429', async () => {
    const dbPath = join(h.dir, 'restart.duckdb');
    // The test before killed a sync of the same account into another file: its sends still count in
    // the simulator's window, which this test's first (fresh) run cannot know. Let them age out.
    await new Promise((r) => setTimeout(r, Math.max(0, killedAtMs + WINDOW_MS + 1_500 - Date.now())));
    const before429 = genuine429();
    const { o, killedAt } = await syncAndKill(dbPath);
    expect(o.requests).toBeGreaterThan(0);
    expect(o.last_request_ms).toBeGreaterThan(killedAt - WINDOW_MS);
    const db = await openDatabase(dbPath);
    try {
      expect(Date.now() - killedAt).toBeLessThan(WINDOW_MS); // the API's window has not passed yet
      const log = memoryLogger('info');
      const s = await runSync(
        { ...h.deps, db, log },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
      );
      expect(s.outcome).toBe('ok');
      expect(genuine429() - before429).toBe(0);
      // the wait is said before the silence it causes, not left for the user to wonder about
      expect(log.lines.join('\n')).toMatch(/waiting for the rate-limit window of the previous run.*wait_s/);
      // The killed run's row keeps what it sent and when it last sent.
      const [row] = await queryDb(
        db,
        'SELECT outcome, requests, CAST(epoch_ms(ended_at) AS DOUBLE) AS ended FROM runs WHERE run_id = ?',
        [o.run_id!],
      );
      expect(row).toMatchObject({ outcome: 'interrupted', requests: o.requests, ended: o.last_request_ms });
    } finally {
      db.close();
    }
  }, 120_000);
});
