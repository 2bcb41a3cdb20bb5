/**
 * Several accounts side by side (FLEETSYNC_CONFIG): two simulated regions with their own zones,
 * credentials and rate limits sync into one database; every row carries its account and each
 * account's data equals its own ground truth. The file never holds a password.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { localDate } from '../../src/time.ts';

let dir: string;
const sims: { fleet: Fleet; sim: SimulatorHandle }[] = [];

const cli = runMain;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-accounts-'));
  for (const [seed, timezone, password] of [
    [5, 'Australia/Sydney', 'syd-Secret-1'],
    [6, 'Africa/Johannesburg', 'jnb-Secret-2'],
  ] as const) {
    const fleet = generateFleet({ seed, vehicles: 5, days: 25, timezone, endDay: '2026-03-20' });
    const base = fleet.endMs + 4 * 86_400_000;
    const t0 = Date.now();
    const sim = await startSimulator({
      fleet,
      now: () => base + (Date.now() - t0),
      windowMs: 1000,
      credentials: { username: 'acme', mainPassword: password, subPassword: `${password}-sub` },
    });
    sims.push({ fleet, sim });
  }
}, 60_000);
afterAll(async () => {
  for (const s of sims) await s.sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(accounts: unknown[]): string {
  const path = join(dir, `accounts-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ accounts }));
  return path;
}

describe('several accounts', () => {
  it('syncs two regions side by side, each equal to its own truth', async () => {
    const path = writeConfig([
      {
        account: 'syd',
        base_url: sims[0]!.sim.baseUrl,
        username: 'acme',
        password_env: 'SYD_PASSWORD',
        timezone: 'Australia/Sydney',
      },
      {
        account: 'jnb',
        base_url: sims[1]!.sim.baseUrl,
        username: 'acme',
        password_env: 'JNB_PASSWORD',
        timezone: 'Africa/Johannesburg',
      },
    ]);
    const dbPath = join(dir, 'two.duckdb');
    const env = {
      FLEETSYNC_CONFIG: path,
      SYD_PASSWORD: 'syd-Secret-1',
      JNB_PASSWORD: 'jnb-Secret-2',
      FLEETSYNC_DB: dbPath,
      FLEETSYNC_RATE_WINDOW_MS: '1000',
    };
    const first = sims[0]!.fleet;
    const r = await cli(
      env,
      'sync',
      '--json',
      '--from',
      localDate(first.startMs, 'Australia/Sydney'),
      '--to',
      '2026-03-20',
    );
    expect(r.stderr + r.stdout).not.toMatch(/Secret/);
    expect(r.code).toBe(0);
    const summaries = JSON.parse(r.stdout) as { account: string; outcome: string }[];
    expect(summaries.map((s) => [s.account, s.outcome])).toEqual([
      ['syd', 'ok'],
      ['jnb', 'ok'],
    ]);
    const db = await openDatabase(dbPath);
    const con = await db.connect();
    try {
      for (const [i, account] of ['syd', 'jnb'].entries()) {
        const { fleet } = sims[i]!;
        const n = (
          await con.runAndReadAll('SELECT count(*) AS n FROM trips WHERE account = $1', [account])
        ).getRowObjectsJS()[0]!.n;
        expect(Number(n), account).toBe(fleet.truth.trips(fleet.startMs, fleet.endMs).length);
        const tz = (
          await con.runAndReadAll('SELECT timezone FROM accounts WHERE account = $1', [account])
        ).getRowObjectsJS()[0]!.timezone;
        expect(tz).toBe(fleet.timezone);
      }
    } finally {
      con.closeSync();
      db.close();
    }
    // One account at a time on request.
    const one = await cli(
      env,
      'sync',
      '--json',
      '--account',
      'jnb',
      '--from',
      '2026-03-01',
      '--to',
      '2026-03-20',
    );
    expect((JSON.parse(one.stdout) as { account: string }).account).toBe('jnb');
    const unknown = await cli(env, 'sync', '--account', 'per');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('accounts: syd, jnb');
  }, 120_000);

  it('names every problem of the file at once and refuses passwords in it', async () => {
    const path = writeConfig([
      { account: 'a', country: 'xx', username: 'u', password_env: 'A_PASSWORD', timezone: 'Mars/Base' },
      {
        account: 'b',
        country: 'za',
        username: 'u',
        password: 'inline-secret',
        timezone: 'Africa/Johannesburg',
      },
      { account: 'c', username: 'u', password_env: 'C_PASSWORD', timezone: 'UTC' },
      {
        account: 'd',
        base_url: 'https://u:url-secret@fleetapi-za.cartrack.com/rest',
        username: 'u',
        password_env: 'D_PASSWORD',
        timezone: 'UTC',
      },
    ]);
    const r = await cli({ FLEETSYNC_CONFIG: path, FLEETSYNC_DB: join(dir, 'never.duckdb') }, 'sync');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('accounts[0].country: unknown country code');
    expect(r.stderr).toContain('accounts[0].timezone: not an IANA time zone');
    expect(r.stderr).toContain('accounts[1].password: passwords never go in the file');
    expect(r.stderr).toContain('accounts[2]: set country or base_url');
    expect(r.stderr).toContain('accounts[3].base_url: must not carry a user name or password');
    expect(r.stderr).not.toContain('inline-secret');
    expect(r.stderr).not.toContain('url-secret');
  });
});
