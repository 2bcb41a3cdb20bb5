/**
 * queueCall against what `pg` really throws when Postgres is not there (a port nobody listens on):
 * retried with backoff 0.5 s, 1 s, 2 s, … 15 s on the injected clock until the outage bound,
 * then E_QUEUE_DOWN naming the call and the setting (exit 75); a call that starts answering is
 * returned; an error that is not about the connection is thrown at once, untried again.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { memoryLogger } from '../../src/log.ts';
import { isQueueConnectionError, queueCall } from '../../src/worker/queue-calls.ts';
import { freePort } from '../helpers/postgres.ts';

async function refusedConnect(port: number): Promise<never> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'u', password: 'p', database: 'd' });
  c.on('error', () => {});
  await c.connect();
  throw new Error('connected to a port nobody listens on');
}

function fakeClock() {
  let t = 1_000_000;
  const waits: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
    waits,
  };
}

describe('queueCall', () => {
  it("recognises pg's refused connection as a connection error, and a SQL error as not one", async () => {
    const port = await freePort();
    const refused = await refusedConnect(port).catch((e: unknown) => e);
    expect(isQueueConnectionError(refused)).toBe(true);
    const sqlError = Object.assign(new Error('relation "pgboss.job" does not exist'), { code: '42P01' });
    expect(isQueueConnectionError(sqlError)).toBe(false);
    expect(isQueueConnectionError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isQueueConnectionError(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
  });

  it('retries through an outage with backoff and returns what the call answers once it is back', async () => {
    const port = await freePort();
    const clock = fakeClock();
    const log = memoryLogger('debug');
    let calls = 0;
    const out = await queueCall(
      'complete job j1',
      async () => (++calls <= 4 ? refusedConnect(port) : 'done'),
      { outageMs: 60_000, log, ...clock },
    );
    expect(out).toBe('done');
    expect(calls).toBe(5);
    expect(clock.waits).toEqual([500, 1000, 2000, 4000]);
    expect(log.lines.filter((l) => /queue database unreachable, retrying/.test(l))).toHaveLength(4);
    expect(log.lines.some((l) => /queue database back/.test(l) && /down_ms[=":]+7500/.test(l))).toBe(true);
  });

  it('gives up after the bound with E_QUEUE_DOWN, which the CLI maps to exit 75', async () => {
    const port = await freePort();
    const clock = fakeClock();
    const err = await queueCall('fail job j2', () => refusedConnect(port), {
      outageMs: 20_000,
      log: memoryLogger('error'),
      ...clock,
    }).catch((e: unknown) => e);
    expect(isFleetsyncError(err, 'E_QUEUE_DOWN')).toBe(true);
    expect((err as Error).message).toMatch(
      /has not answered for 20 s \(FLEETSYNC_QUEUE_OUTAGE_SECONDS=20\) while trying to fail job j2/,
    );
    // 0.5 + 1 + 2 + 4 + 8 = 15.5 s, then the 4.5 s left of the bound: 20 s in all.
    expect(clock.waits).toEqual([500, 1000, 2000, 4000, 8000, 4500]);
  });

  it('a worker told to stop (signal) waits no longer: E_QUEUE_DOWN marked stopped, after one try', async () => {
    const port = await freePort();
    const clock = fakeClock();
    const stop = new AbortController();
    stop.abort();
    let calls = 0;
    const err = await queueCall(
      'complete job j4',
      () => {
        calls++;
        return refusedConnect(port);
      },
      { outageMs: 600_000, log: memoryLogger('error'), ...clock, signal: stop.signal },
    ).catch((e: unknown) => e);
    expect(isFleetsyncError(err, 'E_QUEUE_DOWN')).toBe(true);
    expect((err as { details?: unknown }).details).toEqual({ stopped: true });
    expect((err as Error).message).toMatch(/^stopped while the queue database .* could not complete job j4/);
    expect(calls).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('throws any other error at once', async () => {
    const clock = fakeClock();
    let calls = 0;
    const sqlError = Object.assign(new Error('syntax error'), { code: '42601' });
    const err = await queueCall(
      'complete job j3',
      async () => {
        calls++;
        throw sqlError;
      },
      { outageMs: 60_000, log: memoryLogger('error'), ...clock },
    ).catch((e: unknown) => e);
    expect(err).toBe(sqlError);
    expect(calls).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('a worker whose Postgres is down at start exits 75 (transient), not 2 (configuration)', async () => {
    const port = await freePort();
    let stderr = '';
    const code = await main({
      argv: ['worker', '--enqueue'],
      env: {
        FLEETSYNC_QUEUE_URL: `postgres://u:pw-secret-1@127.0.0.1:${port}/db`,
        FLEET_BASE_URL: 'http://127.0.0.1:9/rest',
        FLEET_USERNAME: 'u',
        FLEET_PASSWORD: 'p',
        FLEET_TIMEZONE: 'UTC',
        FLEETSYNC_LOG_LEVEL: 'error',
      },
      stdout: () => {},
      stderr: (t) => (stderr += t),
      stopSignal: new AbortController().signal,
    });
    expect(code).toBe(75);
    expect(stderr).toMatch(
      /FLEETSYNC_QUEUE_URL \(127\.0\.0\.1:\d+\/db\): cannot reach Postgres \(ECONNREFUSED\)/,
    );
    expect(stderr).not.toContain('pw-secret-1');
  });
});
