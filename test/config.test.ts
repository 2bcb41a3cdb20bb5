import { describe, expect, it } from 'vitest';
import { loadConfig, secretsOf } from '../src/config.ts';
import { isFleetsyncError } from '../src/errors.ts';

function problems(env: Record<string, string>, needApi = true): string[] {
  try {
    loadConfig(env, { needApi });
  } catch (e) {
    if (isFleetsyncError(e, 'E_CONFIG')) return (e.details?.problems as string[]) ?? [];
    throw e;
  }
  return [];
}

describe('configuration', () => {
  it("holds the worker's settings: the documented defaults, each bad one named, the queue URL a secret", () => {
    const w = loadConfig({ FLEETSYNC_DB: '/srv/fleet/fleet.duckdb' }).worker;
    expect(w).toEqual({
      queueUrl: null,
      dataDir: '/srv/fleet',
      lakeDir: null,
      expireSeconds: 14_400,
      retryLimit: 3,
      retryDelaySeconds: 60,
      maintenanceSeconds: 60,
      pollSeconds: 2,
      cronSeconds: 30,
      outageSeconds: 600,
    });
    const set = loadConfig({
      FLEETSYNC_QUEUE_URL: 'postgres://q:s3cret-pw@db:5432/jobs',
      FLEETSYNC_QUEUE_POLL_SECONDS: '0.5',
      FLEETSYNC_QUEUE_CRON_SECONDS: '90',
      FLEETSYNC_JOB_RETRIES: '0',
    });
    expect([set.worker.pollSeconds, set.worker.cronSeconds, set.worker.retryLimit]).toEqual([0.5, 45, 0]);
    expect(secretsOf(set)).toContain('postgres://q:s3cret-pw@db:5432/jobs');
    const found = problems(
      {
        FLEETSYNC_QUEUE_URL: 'redis://x',
        FLEETSYNC_JOB_RETRIES: '-1',
        FLEETSYNC_QUEUE_POLL_SECONDS: '0.1',
        FLEETSYNC_JOB_EXPIRE_SECONDS: 'soon',
      },
      false,
    );
    expect(found).toEqual([
      'FLEETSYNC_QUEUE_URL: set a Postgres URL (postgres://user:password@host:5432/db)',
      'FLEETSYNC_JOB_EXPIRE_SECONDS: must be a number of seconds ≥ 1',
      'FLEETSYNC_JOB_RETRIES: must be a number of retries ≥ 0',
      'FLEETSYNC_QUEUE_POLL_SECONDS: must be a number of seconds ≥ 0.5',
    ]);
  });

  it('takes the accounts file and the prices file from the schema too', () => {
    const c = loadConfig({ FLEETSYNC_CONFIG: ' accounts.json ', FLEETSYNC_PRICES: 'prices.json' });
    expect([c.accountsFile, c.pricesFile]).toEqual(['accounts.json', 'prices.json']);
    // An accounts file names its own API and credentials: the FLEET_* ones are not required.
    expect(problems({ FLEETSYNC_CONFIG: 'accounts.json' })).toEqual([]);
    expect(problems({})).toContain('FLEET_USERNAME: required');
  });

  it('takes the fuel-drop threshold as a number of litres, 8 by default', () => {
    expect(loadConfig({}).fuelDropL).toBe(8);
    expect(loadConfig({ FLEETSYNC_FUEL_DROP_L: '12.5' }).fuelDropL).toBe(12.5);
    for (const bad of ['-3', '0', 'eight', '1e3', '5000'])
      expect(problems({ FLEETSYNC_FUEL_DROP_L: bad }, false).join(), bad).toContain('FLEETSYNC_FUEL_DROP_L');
  });

  it('takes the driver-score weights, minimum km and fuel outlier tolerance, with stated defaults', () => {
    const d = loadConfig({});
    expect(d.scoreWeights).toEqual({
      braking: 5,
      acceleration: 3,
      cornering: 3,
      speeding: 2,
      speeding_min: 1,
    });
    expect([d.scoreMinKm, d.fuelOutlierPct]).toEqual([100, 15]);
    const c = loadConfig({
      FLEETSYNC_SCORE_WEIGHTS: 'braking=2, speeding_min=0.5',
      FLEETSYNC_SCORE_MIN_KM: '50',
      FLEETSYNC_FUEL_OUTLIER_PCT: '20',
    });
    expect(c.scoreWeights).toEqual({
      braking: 2,
      acceleration: 3,
      cornering: 3,
      speeding: 2,
      speeding_min: 0.5,
    });
    expect([c.scoreMinKm, c.fuelOutlierPct]).toEqual([50, 20]);
    expect(problems({ FLEETSYNC_SCORE_WEIGHTS: 'brakes=2' }, false).join()).toMatch(
      /FLEETSYNC_SCORE_WEIGHTS: unknown weight "brakes"; the weights are braking, acceleration/,
    );
    expect(problems({ FLEETSYNC_SCORE_WEIGHTS: 'braking=-1' }, false).join()).toContain(
      'FLEETSYNC_SCORE_WEIGHTS: "braking=-1" is not name=number',
    );
    for (const bad of ['-3', 'ten'])
      expect(problems({ FLEETSYNC_SCORE_MIN_KM: bad, FLEETSYNC_FUEL_OUTLIER_PCT: bad }, false)).toHaveLength(
        2,
      );
  });

  it('builds the regional base URL, karooooo.com for ke and sa', () => {
    const env = { FLEET_USERNAME: 'u', FLEET_PASSWORD: 'p' };
    expect(loadConfig({ ...env, FLEET_COUNTRY: 'za' }, { needApi: true }).baseUrl).toBe(
      'https://fleetapi-za.cartrack.com/rest',
    );
    expect(loadConfig({ ...env, FLEET_COUNTRY: 'KE' }, { needApi: true }).baseUrl).toBe(
      'https://fleetapi-ke.karooooo.com/rest',
    );
    expect(loadConfig({ ...env, FLEET_COUNTRY: 'sa' }, { needApi: true }).baseUrl).toBe(
      'https://fleetapi-sa.karooooo.com/rest',
    );
  });

  it('names every bad variable at once', () => {
    const p = problems({
      FLEET_COUNTRY: 'xx',
      FLEET_TIMEZONE: 'Mars/Olympus',
      FLEETSYNC_SCHEDULE: 'every night',
      FLEETSYNC_PORT: '99999',
      FLEET_USERNAME: 'demo',
    });
    const text = p.join('\n');
    for (const name of [
      'FLEET_COUNTRY',
      'FLEET_TIMEZONE',
      'FLEETSYNC_SCHEDULE',
      'FLEETSYNC_PORT',
      'FLEET_PASSWORD',
    ])
      expect(text).toContain(name);
  });

  it('takes a port only as a plain decimal integer (0x1F91 or 1e3 would listen elsewhere; blanks around it are trimmed like every setting)', () => {
    for (const port of ['0x1F91', '1e3', '80.0', '+80', '-1', 'eighty'])
      expect(problems({ FLEETSYNC_PORT: port }, false).join(), port).toContain('FLEETSYNC_PORT');
    expect(loadConfig({ FLEETSYNC_PORT: '8081' }).port).toBe(8081);
    expect(loadConfig({ FLEETSYNC_PORT: '0' }).port).toBe(0);
    expect(loadConfig({}).port).toBe(8080);
  });

  it('refuses credentials inside FLEET_BASE_URL, naming the variables to use and never echoing them', () => {
    const text = problems({
      FLEET_BASE_URL: 'https://fleet-user:s3cret-pw@fleetapi-za.cartrack.com/rest',
      FLEET_USERNAME: 'u',
      FLEET_PASSWORD: 'p',
    }).join('\n');
    expect(text).toContain('FLEET_BASE_URL');
    expect(text).toContain('FLEET_USERNAME and FLEET_PASSWORD');
    expect(text).not.toContain('s3cret-pw');
    expect(
      problems({
        FLEET_BASE_URL: 'https://fleetapi-za.cartrack.com/rest',
        FLEET_USERNAME: 'u',
        FLEET_PASSWORD: 'p',
      }),
    ).toEqual([]);
  });

  it('refuses a non-loopback bind without a token', () => {
    expect(problems({ FLEETSYNC_HOST: '0.0.0.0' }, false).join()).toContain('FLEETSYNC_TOKEN');
    expect(problems({ FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_TOKEN: 'x'.repeat(32) }, false)).toEqual([]);
  });

  it('never puts the password in an error', () => {
    try {
      loadConfig({ FLEET_PASSWORD: 'S3cret-Passw0rd', FLEET_COUNTRY: 'nowhere' }, { needApi: true });
      expect.unreachable();
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('S3cret');
    }
  });

  it('reads FLEETSYNC_MAX_LATENESS_DAYS (default 14) and names a bad one', () => {
    const env = { FLEET_USERNAME: 'u', FLEET_PASSWORD: 'p', FLEET_COUNTRY: 'za' };
    expect(loadConfig(env, { needApi: true }).maxLateMs).toBe(14 * 86_400_000);
    expect(loadConfig({ ...env, FLEETSYNC_MAX_LATENESS_DAYS: '3' }, { needApi: true }).maxLateMs).toBe(
      3 * 86_400_000,
    );
    for (const bad of ['0', '1.5', 'two', '366'])
      expect(problems({ ...env, FLEETSYNC_MAX_LATENESS_DAYS: bad }).join('\n')).toMatch(
        /FLEETSYNC_MAX_LATENESS_DAYS.*days/,
      );
  });
});
