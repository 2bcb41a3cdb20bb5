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
