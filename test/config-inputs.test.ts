/**
 * Configuration read as written (issue 24 item 4, issue 23 items 3–4): timing meant for the
 * simulator is refused against the real API, the accounts file takes a BOM.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAccounts } from '../src/accounts.ts';
import { firesEverySecond, loadConfig, type Env } from '../src/config.ts';
import { isFleetsyncError } from '../src/errors.ts';
import { STREAMS } from '../src/sync/streams/index.ts';

const API = { FLEET_USERNAME: 'u', FLEET_PASSWORD: 'p' };

function problems(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (isFleetsyncError(e, 'E_CONFIG')) return (e.details?.problems as string[]) ?? [e.message];
    throw e;
  }
  return [];
}
const configProblems = (env: Env) => problems(() => loadConfig(env, { needApi: true }));

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-config-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('timing meant for the simulator', () => {
  it('knows a schedule by the second from one by the minute', () => {
    for (const every of ['* * * * * *', '*/10 * * * * *', '0,30 * * * * *', '0-5 0 2 * * *'])
      expect(firesEverySecond(every), every).toBe(true);
    for (const ok of ['0 2 * * *', '* * * * *', '30 0 2 * * *', '0 */5 * * * *'])
      expect(firesEverySecond(ok), ok).toBe(false);
  });

  it('refuses a schedule by the second and a window below 60 s against a regional API, naming both', () => {
    const p = configProblems({
      ...API,
      FLEET_COUNTRY: 'za',
      FLEETSYNC_SCHEDULE: '* * * * * *',
      FLEETSYNC_RATE_WINDOW_MS: '100',
    });
    expect(p).toHaveLength(2);
    expect(p[0]).toMatch(
      /^FLEETSYNC_SCHEDULE: "\* \* \* \* \* \*" runs more often than once a minute against https:\/\/fleetapi-za\.cartrack\.com\/rest/,
    );
    expect(p[1]).toMatch(
      /^FLEETSYNC_RATE_WINDOW_MS: 100 ms is shorter than the API's documented 60 s window against https:\/\/fleetapi-za/,
    );
    expect(
      configProblems({
        ...API,
        FLEET_BASE_URL: 'https://fleet.example.com/rest',
        FLEETSYNC_RATE_WINDOW_MS: '59999',
      }),
    ).toHaveLength(1);
  });

  it('allows them against the simulator on loopback, or anywhere with FLEETSYNC_ALLOW_FAST_TIMING=true', () => {
    const fast = { FLEETSYNC_SCHEDULE: '* * * * * *', FLEETSYNC_RATE_WINDOW_MS: '1000' };
    const c = loadConfig(
      { ...API, ...fast, FLEET_BASE_URL: 'http://127.0.0.1:4010/rest' },
      { needApi: true },
    );
    expect(c.rateWindowMs).toBe(1000);
    expect(
      loadConfig(
        { ...API, ...fast, FLEET_BASE_URL: 'http://sim.lan:4010/rest', FLEETSYNC_ALLOW_FAST_TIMING: 'true' },
        { needApi: true },
      ).schedule,
    ).toBe('* * * * * *');
    expect(configProblems({ ...API, FLEET_COUNTRY: 'za', FLEETSYNC_ALLOW_FAST_TIMING: 'yes' })).toEqual([
      'FLEETSYNC_ALLOW_FAST_TIMING: must be true or false',
    ]);
    // the documented window and a schedule by the minute are fine anywhere
    expect(
      configProblems({
        ...API,
        FLEET_COUNTRY: 'za',
        FLEETSYNC_SCHEDULE: '0 2 * * *',
        FLEETSYNC_RATE_WINDOW_MS: '60000',
      }),
    ).toEqual([]);
  });

  it('checks each account of an accounts file against its own URL', () => {
    const file = join(dir, 'timing.json');
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          {
            account: 'sim',
            base_url: 'http://127.0.0.1:4010/rest',
            username: 'a',
            password_env: 'PW',
            timezone: 'UTC',
          },
          { account: 'za', country: 'za', username: 'b', password_env: 'PW', timezone: 'UTC' },
        ],
      }),
    );
    const env = { FLEETSYNC_CONFIG: file, PW: 'x', FLEETSYNC_RATE_WINDOW_MS: '1000' };
    const p = problems(() => loadAccounts(env, loadConfig(env)));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(
      /FLEETSYNC_RATE_WINDOW_MS: 1000 ms .* against https:\/\/fleetapi-za\.cartrack\.com\/rest \(account za\)/,
    );
  });
});

describe('the accounts file as users save it', () => {
  it('a file with 30 bad accounts: the first 20 problems and how many more', () => {
    const file = join(dir, 'many.json');
    const accounts = Array.from({ length: 30 }, (_, i) => ({
      account: `a${i}`,
      country: 'za',
      username: 'u',
      password_env: 'PW',
      timezone: 'Mars/Olympus',
    }));
    writeFileSync(file, JSON.stringify({ accounts }));
    let message = '';
    try {
      loadAccounts({ FLEETSYNC_CONFIG: file, PW: 'x' }, loadConfig({ FLEETSYNC_CONFIG: file }));
    } catch (e) {
      message = (e as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    expect(lines.slice(1, 21)).toEqual(
      Array.from(
        { length: 20 },
        (_, i) => `  - FLEETSYNC_CONFIG accounts[${i}].timezone: not an IANA time zone`,
      ),
    );
    expect(lines.slice(21)).toEqual(['  - … and 10 more']);
  });

  it('is read with a UTF-8 BOM (Notepad, Excel)', () => {
    const file = join(dir, 'bom.json');
    const accounts = [
      {
        account: 'za-fleet',
        country: 'za',
        username: 'acme',
        password_env: 'ZA_PW',
        timezone: 'Africa/Johannesburg',
      },
    ];
    writeFileSync(file, '\uFEFF' + JSON.stringify({ accounts }, null, 2));
    const env = { FLEETSYNC_CONFIG: file, ZA_PW: 'pw' };
    expect(loadAccounts(env, loadConfig(env)).map((a) => [a.account, a.baseUrl])).toEqual([
      ['za-fleet', 'https://fleetapi-za.cartrack.com/rest'],
    ]);
  });
});

describe('granted limits (FLEETSYNC_LIMITS, limits per account)', () => {
  it('takes buckets as the spec names them or by short name', () => {
    const c = loadConfig({
      FLEETSYNC_LIMITS: 'default=2000, POST /fuel/level=20,get /vehicles/{reg}/events=400,vext=5',
    });
    expect(c.limits).toEqual({ default: 2000, fuel_level_bulk: 20, vehicle_events: 400, vext: 5 });
    expect(loadConfig({}).limits).toBeUndefined();
  });

  it('names an unknown bucket, a bad number and a bucket given twice', () => {
    const p = problems(() =>
      loadConfig({ FLEETSYNC_LIMITS: 'defualt=2000,POST /fuel/level=lots,default=0,vext=5,vext=6,x' }),
    );
    expect(p[0]).toMatch(
      /^FLEETSYNC_LIMITS: unknown bucket "defualt" \(buckets: default, POST \/fuel\/consumed, /,
    );
    expect(p[1]).toBe(
      'FLEETSYNC_LIMITS: the limit of POST /fuel/level must be a whole number of requests per minute, 1 to 100,000 (got "lots")',
    );
    expect(p[2]).toMatch(/^FLEETSYNC_LIMITS: the limit of default must be a whole number .*\(got "0"\)/);
    expect(p[3]).toBe('FLEETSYNC_LIMITS: GET /vehicles/vext is given twice');
    expect(p[4]).toBe('FLEETSYNC_LIMITS: "x" is not bucket=limit (e.g. default=2000)');
    expect(p).toHaveLength(5);
  });

  it('an account of the accounts file adds its own to those of the environment, each validated with its place', () => {
    const file = join(dir, 'limits.json');
    const account = (name: string, extra: object) => ({
      account: name,
      country: 'za',
      username: 'u',
      password_env: 'PW',
      timezone: 'UTC',
      ...extra,
    });
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [account('a', { limits: { 'POST /fuel/consumed': 50 } }), account('b', {})],
      }),
    );
    const env = { FLEETSYNC_CONFIG: file, PW: 'x', FLEETSYNC_LIMITS: 'default=2000' };
    const [a, b] = loadAccounts(env, loadConfig(env));
    expect(a!.limits).toEqual({ default: 2000, fuel_consumed_bulk: 50 });
    expect(b!.limits).toEqual({ default: 2000 });
    writeFileSync(
      file,
      JSON.stringify({ accounts: [account('a', { limits: { 'POST /fuel/levels': 50, default: -1 } })] }),
    );
    const p = problems(() =>
      loadAccounts({ FLEETSYNC_CONFIG: file, PW: 'x' }, loadConfig({ FLEETSYNC_CONFIG: file })),
    );
    expect(p[0]).toMatch(/^FLEETSYNC_CONFIG accounts\[0\]\.limits: unknown bucket "POST \/fuel\/levels"/);
    expect(p[1]).toMatch(
      /^FLEETSYNC_CONFIG accounts\[0\]\.limits: the limit of default must be .*\(got -1\)/,
    );
  });
});

describe('streams (FLEETSYNC_STREAMS, streams per account)', () => {
  it('names the streams to pull, or those to leave out, against the registry', () => {
    expect(loadConfig({ FLEETSYNC_STREAMS: 'odometer, trips' }).streams).toEqual(['trips', 'odometer']);
    const all = loadConfig({}).streams;
    expect(all).toBeNull();
    const without = loadConfig({ FLEETSYNC_STREAMS: '-carpool,-drivers' }).streams!;
    expect(without).not.toContain('carpool');
    expect(without).not.toContain('drivers');
    expect(without).toContain('trips');
  });

  it('names an unknown stream, a mixed list and a list that leaves nothing', () => {
    expect(problems(() => loadConfig({ FLEETSYNC_STREAMS: 'trips,tripz' }))[0]).toMatch(
      /^FLEETSYNC_STREAMS: unknown stream "tripz" \(streams: vehicles, /,
    );
    expect(problems(() => loadConfig({ FLEETSYNC_STREAMS: 'trips,-carpool' }))[0]).toBe(
      'FLEETSYNC_STREAMS: either the streams to pull (trips,odometer) or those to leave out (-carpool), not both',
    );
    expect(problems(() => loadConfig({ FLEETSYNC_STREAMS: STREAMS.map((s) => `-${s}`).join(',') }))).toEqual([
      'FLEETSYNC_STREAMS: leaves out every stream',
    ]);
  });

  it('an account of the accounts file takes its own list (a list or text), else the environment’s', () => {
    const file = join(dir, 'streams.json');
    const base = { country: 'za', username: 'u', password_env: 'PW', timezone: 'UTC' };
    writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { account: 'a', ...base, streams: ['odometer'] },
          { account: 'b', ...base },
          { account: 'c', ...base, streams: '-trips' },
        ],
      }),
    );
    const env = { FLEETSYNC_CONFIG: file, PW: 'x', FLEETSYNC_STREAMS: 'trips,odometer' };
    const [a, b, c] = loadAccounts(env, loadConfig(env));
    expect(a!.streams).toEqual(['odometer']);
    expect(b!.streams).toEqual(['trips', 'odometer']);
    expect(c!.streams).not.toContain('trips');
    writeFileSync(file, JSON.stringify({ accounts: [{ account: 'a', ...base, streams: ['trip'] }] }));
    expect(
      problems(() =>
        loadAccounts({ FLEETSYNC_CONFIG: file, PW: 'x' }, loadConfig({ FLEETSYNC_CONFIG: file })),
      )[0],
    ).toMatch(/^FLEETSYNC_CONFIG accounts\[0\]\.streams: unknown stream "trip"/);
  });
});
