/**
 * A worker whose account file cannot grow (`ulimit -f`, as test/reliability/checkpoint-limit.int
 * runs the CLI; a full disk does the same): the job's commits reach the write-ahead log, its
 * checkpoint cannot write the file. The job is not a clean success: the worker logs the failed
 * checkpoint and the job failed (retrying) with the cause, where the data are (the .wal, and the
 * lake it published) and what to do; the lake's record of the job (what `serve --lake`'s /healthz
 * and banner read) says the same; the account's file keeps the failure in its state file; the
 * account's alert (incident `checkpoint`) goes out. The job's retry, on a worker without the
 * limit, checkpoints: the job is done, the file holds everything, the alert says "recovered".
 * Real components: an embedded Postgres, a simulator over HTTP, `fleetsync worker` child
 * processes, a webhook receiver. One account, a small fleet.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeProblems, readOutcome, readOutcomes as readJobs } from '../../src/lake/outcomes.ts';
import { readOutcomes } from '../../src/outcome/outcomes.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { runMain } from '../helpers/cli.ts';
import { startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { simAccountsEnv, workerProcesses } from './worker-processes.ts';

const ACCOUNT = 'acct-cp';
/** 1 MiB per file: the account's DuckDB file needs more, the lake's files and the job records less. */
const LIMIT_KIB = 1024;

let pg: TestPostgres;
let sim: SimulatorHandle;
let hook: WebhookReceiver;
let dir: string;
let env: Record<string, string>;
const workers = workerProcesses(() => env);

beforeAll(async () => {
  pg = await startPostgres();
  hook = await startWebhookReceiver();
  const fleet = generateFleet({ seed: 61, vehicles: 3, days: 5, endDay: '2026-04-20' });
  sim = await startSimulator({ fleet, windowMs: 1000 });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-worker-cp-'));
  env = {
    ...simAccountsEnv(dir, pg.url, [{ name: ACCOUNT, baseUrl: sim.baseUrl, zone: fleet.timezone }]),
    FLEETSYNC_LAKE_DIR: join(dir, 'lake'),
    FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks/alerts`,
    FLEETSYNC_JOB_RETRIES: '5',
  };
}, 120_000);

afterAll(async () => {
  workers.killAll();
  await sim?.close();
  await hook?.close();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a worker whose account file cannot grow', () => {
  it('records the job failed with the checkpoint failure, keeps and alerts it; the retry without the limit checkpoints and recovers', async () => {
    const file = join(dir, 'data', 'accounts', `${ACCOUNT}.duckdb`);
    const lake = join(dir, 'lake');
    const limited = workers.start({}, LIMIT_KIB);
    await workers.until(() => workers.lines(/worker ready/).length === 1, 60_000, 'the worker ready');
    expect(
      (await runMain(env, 'worker', '--enqueue', '--from', '2026-04-16', '--to', '2026-04-20')).code,
    ).toBe(0);
    await workers.until(() => workers.lines(/job failed/).length > 0, 90_000, 'the job failed');
    limited.child.kill('SIGTERM');
    expect(await limited.exit).toBe(0);

    // the worker's log: the checkpoint failed, the job failed and is retried; never "job done"
    expect(workers.lines(/job done/)).toEqual([]);
    const failed = workers.lines(/job failed/)[0]!;
    expect(failed).toMatch(/checkpoint failed/);
    expect(failed).toMatch(/could not grow \(.*File too large/);
    expect(failed).toContain(`kept in the write-ahead log ${file}.wal`);
    expect(failed).toMatch(/retrying[=":\s]+true/);
    expect(statSync(file).size).toBeLessThanOrEqual(LIMIT_KIB * 1024); // the file stopped at the limit
    expect(statSync(`${file}.wal`).size).toBeGreaterThan(0); // the data are there

    // the lake's record (serve --lake's /healthz 503 and banner): failed, retrying, the cause and fix
    const recorded = readOutcome(lake, ACCOUNT)!;
    expect(recorded.published_at).not.toBeNull(); // the synced data reached the lake
    expect(recorded.last_job).toMatchObject({ outcome: 'failed', attempt: 1, retrying: true });
    expect(recorded.last_job!.error).toMatch(
      /the job's checkpoint failed \(the lake has the synced data\): .*could not grow.*free space on its disk or raise the file-size limit.*write-ahead log .*\.wal \(do not delete it\).*the job's retry checkpoints again/,
    );
    // what serve --lake's /healthz (503) and banner give as the account's problem
    expect(outcomeProblems(readJobs(lake), Date.now(), 24)).toEqual([
      expect.stringMatching(
        /^account acct-cp: the last job \S+ failed \(attempt 1, retrying\) at .*checkpoint failed/,
      ),
    ]);
    // the account's file keeps the failure (status, serve of that file) until a checkpoint succeeds
    expect(readOutcomes(file).checkpoint?.problem).toContain('could not grow');
    // the account's alert: the checkpoint incident, its cause and fix
    const alerts = () => hook.posts.map((p) => p.body.text);
    expect(alerts().filter((t) => /could not take the synced data of account acct-cp/.test(t))).toHaveLength(
      1,
    );
    expect(alerts().join('\n')).toContain(`${file}.wal`);

    // the retry, by a worker without the limit: the checkpoint succeeds, the job is done
    workers.start();
    await workers.until(() => workers.lines(/job done/).length > 0, 90_000, 'the retry done');
    expect(readOutcome(lake, ACCOUNT)!.last_job).toMatchObject({ outcome: 'ok', error: null });
    expect(outcomeProblems(readJobs(lake), Date.now(), 24)).toEqual([]);
    expect(statSync(file).size).toBeGreaterThan(LIMIT_KIB * 1024);
    expect(existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0).toBe(0);
    expect(readOutcomes(file).checkpoint).toBeNull();
    await workers.until(
      () =>
        alerts().some((t) => /recovered: the database file holds the synced data of account acct-cp/.test(t)),
      10_000,
      'the recovery alerted',
    );
    workers.killAll('SIGTERM');
  }, 240_000);
});
