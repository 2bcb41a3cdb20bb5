/**
 * Workers tell someone, and ride out Postgres: real `fleetsync worker` child processes, an
 * embedded Postgres that the test stops and starts, simulators over HTTP, a real webhook receiver.
 *
 * - an account with a wrong password: exactly one request reaches the API (no retry, no second
 *   login), the job is in the dead-letter queue with a true error text, and exactly one alert
 *   names the account (never the password);
 * - a job that fails every retry (an account the worker does not know: no run to alert about) is
 *   given up and alerts once, as the account's `job` incident;
 * - Postgres stopped while a job runs and started again while the worker retries the job's
 *   completion: the job is completed exactly once, and the worker lives on;
 * - Postgres down longer than FLEETSYNC_QUEUE_OUTAGE_SECONDS: the worker exits 75 (transient);
 *   one stopped (SIGTERM) during the outage exits 0 at once;
 * - `serve --lake` then shows the failed account and the never-published one: /healthz 503;
 * - the password fixed and the account queued again: one "recovered" alert.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { runMain } from '../helpers/cli.ts';
import { startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { workerProcesses, type WorkerProcess } from './worker-processes.ts';

const WRONG_PASSWORD = 'wrong-password-7731';

type Line = Record<string, unknown> & { msg: string };
interface Worker extends WorkerProcess {
  readonly lines: Line[];
}

let pg0: TestPostgres;
let dir: string;
let sim: SimulatorHandle;
let badSim: SimulatorHandle;
let hook: WebhookReceiver;
let env: Record<string, string>;
const workers = workerProcesses(() => env);

/** A worker whose stderr lines are read as the JSON log records they are (FLEETSYNC_LOG_FORMAT=json). */
function startWorker(extra: Record<string, string> = {}): Worker {
  const w = workers.start(extra);
  const parse = (text: string): Line => {
    try {
      return JSON.parse(text) as Line;
    } catch {
      return { msg: text };
    }
  };
  return Object.defineProperty(w, 'lines', { get: () => w.log.map(parse) }) as Worker;
}

const until = workers.until;

const logged = (w: Worker, msg: string, fields: Record<string, unknown> = {}) =>
  w.lines.filter((l) => l.msg === msg && Object.entries(fields).every(([k, v]) => l[k] === v));

async function jobsOf(account: string) {
  const c = new pg.Client({ connectionString: pg0.url });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; state: string; retry_count: number; output: unknown }>(
      "SELECT name, state, retry_count, output FROM pgboss.job WHERE data->>'account' = $1 ORDER BY created_on",
      [account],
    );
    return rows;
  } finally {
    await c.end();
  }
}

/** Queues one job for each of `accounts` (a config file that lists only them). */
async function enqueue(...accounts: string[]) {
  const only = join(dir, `enqueue-${accounts.join('-')}.json`);
  const all = JSON.parse(readFileSync(env.FLEETSYNC_CONFIG!, 'utf8')) as { accounts: { account: string }[] };
  writeFileSync(only, JSON.stringify({ accounts: all.accounts.filter((a) => accounts.includes(a.account)) }));
  const r = await runMain({ ...env, FLEETSYNC_CONFIG: only }, 'worker', '--enqueue');
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(async () => {
  pg0 = await startPostgres();
  hook = await startWebhookReceiver();
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-worker-alerts-'));
  const fleet = generateFleet({ seed: 7, vehicles: 3, days: 10, endDay: '2026-04-20' });
  sim = await startSimulator({ fleet, windowMs: 1000 });
  badSim = await startSimulator({ fleet, windowMs: 1000 });
  const config = join(dir, 'accounts.json');
  const acct = (account: string, s: SimulatorHandle, pw: string) => ({
    account,
    base_url: s.baseUrl,
    username: 'demo',
    password_env: pw,
    timezone: fleet.timezone,
  });
  writeFileSync(
    config,
    JSON.stringify({
      accounts: [
        acct('good', sim, 'GOOD_PW'),
        acct('locked', badSim, 'LOCKED_PW'),
        acct('never', sim, 'GOOD_PW'), // configured, never queued: never published
      ],
    }),
  );
  env = {
    FLEETSYNC_QUEUE_URL: pg0.url,
    FLEETSYNC_CONFIG: config,
    GOOD_PW: 'demo-main',
    LOCKED_PW: WRONG_PASSWORD,
    FLEETSYNC_DATA_DIR: join(dir, 'data'),
    FLEETSYNC_LAKE_DIR: join(dir, 'lake'),
    FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks/alerts`,
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    FLEETSYNC_JOB_RETRIES: '3',
    FLEETSYNC_JOB_RETRY_DELAY_SECONDS: '1',
    FLEETSYNC_QUEUE_MAINTENANCE_SECONDS: '1',
    FLEETSYNC_QUEUE_POLL_SECONDS: '0.5',
    FLEETSYNC_QUEUE_OUTAGE_SECONDS: '120',
    FLEETSYNC_LOG_FORMAT: 'json',
    FLEETSYNC_LOG_LEVEL: 'info',
  };
}, 120_000);

afterAll(async () => {
  workers.killAll();
  await sim?.close();
  await badSim?.close();
  await hook?.close();
  await pg0?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fleetsync worker: alerts and Postgres outages', () => {
  let a: Worker;

  it('a wrong password: one request, no retry, the dead-letter queue, one alert naming the account', async () => {
    a = startWorker();
    await until(() => logged(a, 'worker ready').length === 1, 60_000, 'the worker ready');
    await enqueue('locked');
    await until(
      () => logged(a, 'job given up', { account: 'locked' }).length === 1,
      60_000,
      'the dead letter',
    );
    // Time for anything more to happen (a retry would come after 1 s, the maintenance runs each second).
    await new Promise((r) => setTimeout(r, 4000));

    expect(badSim.stats().total).toBe(1);
    expect(badSim.stats().unauthorized).toBe(1);
    const jobs = await jobsOf('locked');
    expect(jobs.map((j) => [j.name, j.state, j.retry_count])).toEqual([
      ['fleetsync-sync', 'failed', 0],
      ['fleetsync-dead', 'completed', 0], // the dead letter, read and alerted by the worker
    ]);
    const output = jobs[0]!.output as { message: string; retrying: boolean; attempt: number };
    expect(output).toMatchObject({ retrying: false, attempt: 1 });
    expect(output.message).toMatch(/^E_AUTH: account locked: the API refused the credentials .*not retried/);
    expect(output.message).not.toMatch(/the retry resumes it/);

    expect(hook.posts).toHaveLength(1);
    const alert = hook.posts[0]!;
    expect(alert.path).toBe('/hooks/alerts');
    expect(alert.body.text).toMatch(/account locked/);
    expect(alert.body.text).toMatch(/E_AUTH/);
    expect(alert.body).toMatchObject({ fleetsync: { account: 'locked', state: 'open' } });
    expect(JSON.stringify(hook.posts) + JSON.stringify(jobs)).not.toContain(WRONG_PASSWORD);
    expect(JSON.stringify(a.lines)).not.toContain(WRONG_PASSWORD);

    const outcome = JSON.parse(readFileSync(join(dir, 'lake', '_jobs', 'locked.json'), 'utf8')) as {
      published_at: string | null;
      last_job: { outcome: string };
    };
    expect(outcome).toMatchObject({ published_at: null, last_job: { outcome: 'dead' } });
  }, 120_000);

  it('a job given up after its retries (an account this worker does not know) alerts once, as the job incident', async () => {
    const cfg = join(dir, 'ghost.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        accounts: [
          {
            account: 'ghost',
            base_url: sim.baseUrl,
            username: 'demo',
            password_env: 'GOOD_PW',
            timezone: 'UTC',
          },
        ],
      }),
    );
    const r = await runMain({ ...env, FLEETSYNC_CONFIG: cfg }, 'worker', '--enqueue');
    expect(r.code, r.stderr).toBe(0);
    await until(
      () => logged(a, 'job given up', { account: 'ghost' }).length === 1,
      90_000,
      'the dead letter',
    );
    await new Promise((r) => setTimeout(r, 2000));
    // FLEETSYNC_JOB_RETRIES=3: four attempts, then the dead letter.
    expect(logged(a, 'job failed', { account: 'ghost' }).map((l) => [l.attempt, l.retrying])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
    ]);
    // the dead letter's own job completes once its handler has posted (later on a loaded machine)
    let jobs = await jobsOf('ghost');
    for (const end = Date.now() + 30_000; Date.now() < end; jobs = await jobsOf('ghost')) {
      if (jobs.some((j) => j.name === 'fleetsync-dead' && j.state === 'completed')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(jobs.map((j) => [j.name, j.state, j.retry_count])).toEqual([
      ['fleetsync-sync', 'failed', 3],
      ['fleetsync-dead', 'completed', 0],
    ]);
    const ghost = hook.posts.filter((p) => (p.body.fleetsync as { account?: string }).account === 'ghost');
    expect(ghost).toHaveLength(1);
    expect(ghost[0]!.body).toMatchObject({ fleetsync: { incident: 'job', state: 'open' } });
    expect(ghost[0]!.body.text).toMatch(
      /^fleetsync: a worker gave up on the sync of account ghost: job \S+ failed 4 time\(s\) and is in the dead-letter queue fleetsync-dead\. Last error: E_CONFIG: job \S+: account ghost is not in FLEETSYNC_CONFIG\./,
    );
    expect(hook.posts).toHaveLength(2);
  }, 120_000);

  it('Postgres stopped during a job and started during its completion: completed exactly once, the worker lives', async () => {
    sim.setFaults({ latencyMs: 150 }); // a job of several seconds: Postgres goes down while it runs
    await enqueue('good');
    await until(() => logged(a, 'job started', { account: 'good' }).length === 1, 60_000, 'the job started');
    await pg0.halt();
    const completing = (l: Line) =>
      l.msg === 'queue database unreachable, retrying' && /^complete job /.test(String(l.call));
    await until(() => a.lines.filter(completing).length >= 2, 120_000, 'the completion retried');
    expect(logged(a, 'job done', { account: 'good' })).toHaveLength(1);
    await pg0.resume();
    await until(
      () => a.lines.some((l) => l.msg === 'queue database back' && /^complete job /.test(String(l.call))),
      60_000,
      'the completion recorded',
    );
    sim.setFaults({});
    // Maintenance and polling go on for a while: the job stays done, nothing runs it again.
    await new Promise((r) => setTimeout(r, 4000));
    const jobs = await jobsOf('good');
    expect(jobs.map((j) => [j.name, j.state])).toEqual([['fleetsync-sync', 'completed']]);
    expect(logged(a, 'job started', { account: 'good' })).toHaveLength(1);
    expect(logged(a, 'job done', { account: 'good' })).toHaveLength(1);
    expect(a.child.exitCode).toBeNull();
    expect(a.child.signalCode).toBeNull();
    const outcome = JSON.parse(readFileSync(join(dir, 'lake', '_jobs', 'good.json'), 'utf8')) as {
      published_at: string | null;
      last_job: { outcome: string };
    };
    expect(outcome.last_job.outcome).toBe('ok');
    expect(outcome.published_at).not.toBeNull();
    expect(hook.posts).toHaveLength(2); // an ok run alerts nothing
  }, 240_000);

  it('Postgres down longer than FLEETSYNC_QUEUE_OUTAGE_SECONDS: the worker exits 75; SIGTERM meanwhile stops at once; a longer bound rides it out', async () => {
    const b = startWorker({ FLEETSYNC_QUEUE_OUTAGE_SECONDS: '3' });
    const c = startWorker();
    await until(
      () => logged(b, 'worker ready').length === 1 && logged(c, 'worker ready').length === 1,
      60_000,
      'two more workers ready',
    );
    const down = Date.now();
    await pg0.halt();
    const code = await b.exit;
    const after = Date.now() - down;
    expect(code).toBe(75);
    expect(after).toBeGreaterThanOrEqual(3000);
    expect(after).toBeLessThan(20_000);
    expect(JSON.stringify(b.lines)).toMatch(
      /has not answered for \d+ s \(FLEETSYNC_QUEUE_OUTAGE_SECONDS=3\)/,
    );
    // A worker told to stop while Postgres is away stops now (exit 0), not after the bound.
    await until(
      () => c.lines.some((l) => l.msg === 'queue database unreachable, retrying'),
      30_000,
      'c retrying',
    );
    const term = Date.now();
    c.child.kill('SIGTERM');
    expect(await c.exit).toBe(0);
    const stopMs = Date.now() - term;
    console.log(
      `outage: exit 75 after ${after} ms (bound 3 s); SIGTERM during the outage: exit after ${stopMs} ms`,
    );
    expect(stopMs).toBeLessThan(10_000);
    expect(logged(c, 'worker stopped with the queue database unreachable')).toHaveLength(1);
    await pg0.resume();
    // The first worker's heartbeat retried through it and goes on.
    await until(
      () => a.lines.some((l) => l.msg === 'queue database back' && /heartbeat/.test(String(l.call))),
      60_000,
      'the first worker back',
    );
    expect(a.child.exitCode).toBeNull();
  }, 120_000);

  it('serve --lake: the failed account and the never-published one are named, /healthz 503', async () => {
    a.child.kill('SIGTERM');
    expect(await a.exit).toBe(0);
    const stop = new AbortController();
    let out = '';
    const served = main({
      argv: ['serve', '--lake', join(dir, 'lake')],
      env: { FLEETSYNC_PORT: '0', FLEETSYNC_LOG_LEVEL: 'error' },
      stdout: (t) => (out += t),
      stderr: () => {},
      stopSignal: stop.signal,
    });
    try {
      await until(() => /http:\/\/\S+/.test(out), 30_000, 'the lake server');
      const base = /(http:\/\/\S+?)\/?\s/.exec(out)![1]!;
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(503);
      const h = (await health.json()) as { reasons: string[] };
      const mine = h.reasons.filter((r) => /^account (ghost|good|locked|never):/.test(r));
      expect(mine, h.reasons.join('\n')).toHaveLength(5);
      expect(mine[0]).toMatch(
        /^account ghost: the last job \S+ was given up \(dead-letter queue\) at .*E_CONFIG/,
      );
      expect(mine[2]).toMatch(
        /^account locked: the last job \S+ was given up \(dead-letter queue\) at .*E_AUTH/,
      );
      expect([mine[1], ...mine.slice(3)]).toEqual([
        'account ghost: never published to the lake',
        'account locked: never published to the lake',
        'account never: never published to the lake',
      ]);
      // The account that synced and published is fine: no reason names it.
      expect(mine.some((r) => r.startsWith('account good:'))).toBe(false);

      const status = (await (await fetch(`${base}/api/status?account=good`)).json()) as {
        jobs: {
          accounts: { account: string; published_at: string | null; last_job: { outcome: string } | null }[];
          problems: string[];
        };
      };
      expect(
        status.jobs.accounts.map((j) => [j.account, j.published_at !== null, j.last_job?.outcome ?? null]),
      ).toEqual([
        ['ghost', false, 'dead'],
        ['good', true, 'ok'],
        ['locked', false, 'dead'],
        ['never', false, null],
      ]);
      expect(status.jobs.problems).toEqual(mine);
    } finally {
      stop.abort();
      expect(await served).toBe(0);
    }
  }, 60_000);

  it('the password fixed and the account queued again: the job completes, one "recovered", the lake shows it ok', async () => {
    const d = startWorker({ LOCKED_PW: 'demo-main' });
    await until(() => logged(d, 'worker ready').length === 1, 60_000, 'a worker with the fixed password');
    const before = hook.posts.length;
    await enqueue('locked');
    await until(() => logged(d, 'job done', { account: 'locked' }).length === 1, 120_000, 'the job done');
    await until(() => hook.posts.length > before, 10_000, 'the recovered alert');
    await new Promise((r) => setTimeout(r, 1000));
    const mine = hook.posts.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toMatchObject({
      fleetsync: { account: 'locked', incident: 'run', state: 'recovered' },
    });
    expect(mine[0]!.body.text).toMatch(/^fleetsync: recovered: the sync of account locked is ok again/);
    const outcome = JSON.parse(readFileSync(join(dir, 'lake', '_jobs', 'locked.json'), 'utf8')) as {
      published_at: string | null;
      last_job: { outcome: string };
    };
    expect(outcome.last_job.outcome).toBe('ok');
    expect(outcome.published_at).not.toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exit).toBe(0);
  }, 180_000);
});
