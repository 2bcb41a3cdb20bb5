/**
 * Setting up `fleetsync serve` as an operator would, through the real CLI: the `.env` file is
 * read (the environment wins), a schedule without credentials refuses to start, the start lines
 * give times in the account's zone with the zone named, and the download temp directory is
 * removed at stop and, after a kill, at the next start.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli, type SpawnedCli } from '../helpers/cli-process.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-serve-setup-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sub = (name: string) => {
  const p = join(dir, name);
  mkdirSync(p);
  return p;
};

/** Stops a serve started here (SIGTERM, as systemd and docker stop do) and returns its result. */
async function stop(serve: SpawnedCli) {
  serve.child.kill('SIGTERM');
  return serve.exited;
}

/** A CLI run that must end by itself; a server that keeps serving fails the test instead of hanging. */
async function mustExit(args: string[], env: Record<string, string>, cwd?: string) {
  const cli = spawnCli(args, env, cwd);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000);
  const r = await cli.exited.finally(() => clearTimeout(timer));
  expect(r.signal, `still running after 20 s:\n${r.stdout}${r.stderr}`).toBeNull();
  return r;
}

describe('.env', () => {
  it('is read from the working directory; a variable set in the environment wins over it', async () => {
    const cwd = sub('dotenv');
    writeFileSync(
      join(cwd, '.env'),
      [
        '# fleetsync settings',
        'FLEETSYNC_DB=from-dotenv.duckdb',
        'FLEETSYNC_PORT=0',
        'FLEET_TIMEZONE=Australia/Sydney',
        'FLEETSYNC_ACCOUNT="acme"',
      ].join('\n') + '\n',
    );
    const serve = spawnCli(['serve'], { FLEETSYNC_ENV_FILE: '', FLEET_TIMEZONE: 'Asia/Tokyo' }, cwd);
    try {
      const line = await serve.waitFor(/fleetsync dashboard: http/);
      expect(line).toMatch(/ — account acme, started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(Asia\/Tokyo\)/);
      expect(existsSync(join(cwd, 'from-dotenv.duckdb'))).toBe(true);
    } finally {
      expect((await stop(serve)).code).toBe(0);
    }
  }, 30_000);

  it('FLEETSYNC_ENV_FILE names another file, which must exist (exit 2, nothing started)', async () => {
    const cwd = sub('envfile');
    const r = await mustExit(['serve'], { FLEETSYNC_ENV_FILE: 'etc/fleetsync.env' }, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the environment file .*etc\/fleetsync\.env \(FLEETSYNC_ENV_FILE\)/);
    expect(readdirSync(cwd)).toEqual([]);
    // A directory where the file should be (e.g. a .env/ left by a tool): named, exit 2.
    mkdirSync(join(cwd, '.env'));
    const d = await mustExit(['serve'], { FLEETSYNC_ENV_FILE: '' }, cwd);
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/the environment file .*\/\.env is not a regular file/);
  }, 30_000);
});

describe('a schedule', () => {
  it('without credentials refuses to start (exit 2), naming what is missing; nothing created', async () => {
    const cwd = sub('schedule-no-creds');
    const r = await mustExit(
      ['serve'],
      { FLEETSYNC_SCHEDULE: '0 2 * * *', FLEETSYNC_PORT: '0', FLEETSYNC_DB: join(cwd, 'fleet.duckdb') },
      cwd,
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /FLEETSYNC_SCHEDULE: a scheduled sync needs the API credentials, but FLEET_COUNTRY or FLEET_BASE_URL, FLEET_USERNAME, FLEET_PASSWORD are not set/,
    );
    expect(r.stdout).not.toMatch(/dashboard/);
    expect(readdirSync(cwd)).toEqual([]);
  }, 30_000);

  it("prints its next run in the account's zone, with the zone named", async () => {
    const cwd = sub('schedule-zone');
    const serve = spawnCli(
      ['serve'],
      {
        FLEETSYNC_SCHEDULE: '30 2 * * *',
        FLEETSYNC_PORT: '0',
        FLEETSYNC_DB: join(cwd, 'fleet.duckdb'),
        FLEET_TIMEZONE: 'Australia/Sydney',
        // Never asked before the first run, which this test does not wait for.
        FLEET_BASE_URL: 'http://127.0.0.1:9/rest',
        FLEET_USERNAME: 'demo',
        FLEET_PASSWORD: 'demo-main',
      },
      cwd,
    );
    try {
      const line = await serve.waitFor(/^scheduled sync:/);
      // 02:30 wall time in Sydney, whatever the date and the machine's zone (UTC would read 15:30/16:30).
      expect(line).toMatch(
        /^scheduled sync: "30 2 \* \* \*" in Australia\/Sydney; next run \d{4}-\d\d-\d\d 02:30:00 \(Australia\/Sydney\)$/,
      );
    } finally {
      expect((await stop(serve)).code).toBe(0);
    }
  }, 30_000);
});

describe('the download temp directory', () => {
  it('is removed at stop, and a killed server’s at the next start (a live one’s stays)', async () => {
    const cwd = sub('temp');
    const tmp = sub('tmp');
    const env = { TMPDIR: tmp, FLEETSYNC_PORT: '0', FLEETSYNC_DB: join(cwd, 'fleet.duckdb') };
    const serveDirs = () => readdirSync(tmp).filter((f) => f.startsWith('fleetsync-serve-'));

    // A live process's directory (another server) and one of a process that is gone.
    const live = spawn('sleep', ['60']);
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    const liveDir = `fleetsync-serve-${live.pid}-aaaaaa`;
    const goneDir = `fleetsync-serve-${gone.pid}-bbbbbb`;
    for (const d of [liveDir, goneDir]) {
      mkdirSync(join(tmp, d));
      writeFileSync(join(tmp, d, 'cut-off-download.csv'), 'registration,distance_km\n');
    }
    try {
      // First server: sweeps the gone process's directory, keeps the live one's, makes its own.
      const first = spawnCli(['serve'], env, cwd);
      await first.waitFor(/fleetsync dashboard: http/);
      const own = serveDirs().filter((d) => d !== liveDir);
      expect(own).toHaveLength(1);
      expect(serveDirs()).not.toContain(goneDir);
      expect(own[0]).toMatch(new RegExp(`^fleetsync-serve-${first.child.pid}-`));
      // A download copy in it when the server is killed.
      writeFileSync(join(tmp, own[0]!, 'download.csv'), 'a full copy of a report\n');
      first.child.kill('SIGKILL');
      await first.exited;
      expect(serveDirs()).toContain(own[0]);

      // The next start removes the killed server's directory; its own goes at SIGTERM.
      const second = spawnCli(['serve'], env, cwd);
      await second.waitFor(/fleetsync dashboard: http/);
      expect(serveDirs()).not.toContain(own[0]);
      expect(serveDirs()).toContain(liveDir);
      expect(serveDirs()).toHaveLength(2);
      expect((await stop(second)).code).toBe(0);
      expect(serveDirs()).toEqual([liveDir]);
    } finally {
      live.kill();
    }
  }, 60_000);
});
