/**
 * Worker mode refuses bad settings with a clear error naming the setting, before taking any job:
 * an unreachable queue (exit 75: transient, a service manager restarts), wrong Postgres credentials (the password never shown), a lake directory
 * that cannot be written.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { freePort, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

let pg: TestPostgres;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-badq-'));
  const config = join(dir, 'accounts.json');
  writeFileSync(
    config,
    JSON.stringify({
      accounts: [
        {
          account: 'a1',
          base_url: 'http://127.0.0.1:9/rest',
          username: 'u',
          password_env: 'A1_PW',
          timezone: 'UTC',
        },
      ],
    }),
  );
  env = {
    FLEETSYNC_CONFIG: config,
    A1_PW: 'x',
    FLEETSYNC_DATA_DIR: join(dir, 'data'),
    FLEETSYNC_LOG_LEVEL: 'error',
  };
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fleetsync worker: bad settings', () => {
  it('an unreachable queue URL: exit 75 (transient, restartable) naming FLEETSYNC_QUEUE_URL', async () => {
    const port = await freePort();
    const r = await runMain(
      { ...env, FLEETSYNC_QUEUE_URL: `postgres://u:p@127.0.0.1:${port}/db` },
      'worker',
      '--enqueue',
    );
    expect(r.code).toBe(75);
    expect(r.stderr).toMatch(
      /FLEETSYNC_QUEUE_URL \(127\.0\.0\.1:\d+\/db\): cannot reach Postgres \(ECONNREFUSED\)/,
    );
  });

  it('wrong Postgres credentials: exit 2 naming FLEETSYNC_QUEUE_URL, the password never shown', async () => {
    const url = pg.url.replace('pg-test-secret', 'wrong-secret-123');
    const r = await runMain({ ...env, FLEETSYNC_QUEUE_URL: url }, 'worker', '--enqueue');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEETSYNC_QUEUE_URL .*: Postgres refused the user name or password/);
    expect(r.stderr + r.stdout).not.toMatch(/wrong-secret-123|pg-test-secret/);
  });

  it('a lake directory that cannot be written: exit 2 naming FLEETSYNC_LAKE_DIR, nothing published', async () => {
    writeFileSync(join(dir, 'plain-file'), '');
    const lake = join(dir, 'plain-file', 'lake');
    const r = await runMain({ ...env, FLEETSYNC_QUEUE_URL: pg.url, FLEETSYNC_LAKE_DIR: lake }, 'worker');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEETSYNC_LAKE_DIR: the lake directory .* is not writable/);
    expect(existsSync(lake)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['accounts.json', 'plain-file']);
  });

  it('a URL that is not a Postgres URL: exit 2 before any connection', async () => {
    const r = await runMain({ ...env, FLEETSYNC_QUEUE_URL: 'redis://x' }, 'worker', '--enqueue');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FLEETSYNC_QUEUE_URL: set a Postgres URL/);
  });
});
