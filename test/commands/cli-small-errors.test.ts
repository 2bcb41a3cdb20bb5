/**
 * Small CLI errors as a user meets them (session 14, `drain`): `sync --plan` on an untouched copy
 * of .env.example names the values still the example's and exits 2 (it planned as if all were
 * well, exit 0); a bad date repeats the value given; an unknown FLEET_COUNTRY lists every
 * accepted code (only examples before); the sync's table says its last four columns count windows.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { loadEnvFile } from '../../src/env-file.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
import { formatSummary } from '../../src/sync/report.ts';
import { runMain } from '../helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'fleetsync-small-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment the CLI gets from the env file `file` (as src/cli.ts loads it), with a database here. */
function envFrom(file: string, extra: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    FLEETSYNC_ENV_FILE: file,
    FLEETSYNC_DB: join(dir, 'never.duckdb'),
    ...extra,
  };
  loadEnvFile({ env, cwd: dir });
  return env as Record<string, string>;
}

describe('sync --plan on an untouched copy of .env.example', () => {
  it("names the values still the example's and exits 2 (the config error), creating nothing", async () => {
    const copy = join(dir, '.env');
    copyFileSync(join(ROOT, '.env.example'), copy);
    const r = await runMain(envFrom(copy), 'sync', '--plan');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(".env.example's");
    // the values .env.example sets, read off the file by hand
    for (const v of [
      'FLEET_USERNAME (empty)',
      'FLEET_PASSWORD (empty)',
      'FLEET_COUNTRY=za',
      'FLEET_TIMEZONE=Africa/Johannesburg',
    ])
      expect(r.stderr).toContain(v);
    expect(readdirSync(dir)).toEqual(['.env']);
  });

  it("plans once one of them is the user's own (a plan needs no credentials)", async () => {
    const copy = join(dir, '.env');
    const r = await runMain(
      envFrom(copy, { FLEET_TIMEZONE: 'Australia/Sydney' }),
      'sync',
      '--plan',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-02',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('plan for default: 2026-11-01 .. 2026-11-02');
  });
});

describe('a bad date repeats the value given', () => {
  it('sync --from / --to', async () => {
    const r = await runMain(
      { FLEETSYNC_DB: join(dir, 'never.duckdb') },
      'sync',
      '--plan',
      '--from',
      '2026-02-30',
      '--to',
      '26-3-1',
    );
    expect(r.code).toBe(2); // a usage error
    expect(r.stderr).toContain('--from must be a calendar day YYYY-MM-DD (got "2026-02-30")');
    expect(r.stderr).toContain('--to must be a calendar day YYYY-MM-DD (got "26-3-1")');
  });

  it("report range parameters (the API's 400 and export's message)", () => {
    const def = requireReport('mileage');
    const scope = { zone: 'Africa/Johannesburg', nowMs: Date.UTC(2026, 10, 1) };
    const message = (raw: Record<string, string>) => {
      try {
        parseReportParams(raw, def, scope);
      } catch (e) {
        if (isFleetsyncError(e, 'E_BAD_REQUEST')) return e.message;
        throw e;
      }
      return 'accepted';
    };
    expect(message({ from: '2026-02-30' })).toBe('from: is not a calendar day (got "2026-02-30")');
    expect(message({ to: '1/3/2026' })).toBe(
      'to: must be a calendar day YYYY-MM-DD (got "1/3/2026"); to: is not a calendar day (got "1/3/2026")',
    );
    expect(message({ month: '2026-13' })).toBe('month: must be a month YYYY-MM (got "2026-13")');
    expect(message({ from: '2026-03-02', to: '2026-03-01' })).toBe(
      'to: 2026-03-01 is before from 2026-03-02',
    );
  });
});

describe('worker --full-publish', () => {
  it('goes with --enqueue: a usage error without it, before any setting is read', async () => {
    const r = await runMain({}, 'worker', '--full-publish');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--full-publish goes with --enqueue');
  });
});

describe('an unknown FLEET_COUNTRY', () => {
  it('repeats the value and lists every accepted code', () => {
    let text = '';
    try {
      loadConfig({ FLEET_COUNTRY: 'uk', FLEET_USERNAME: 'u', FLEET_PASSWORD: 'p' }, { needApi: true });
    } catch (e) {
      text = (e as Error).message;
    }
    expect(text).toContain('FLEET_COUNTRY: unknown country code "uk"');
    // the regional hosts docs/api-differences.md and the published servers list name, by hand
    const codes =
      'au bw es hk id ke kh me mw my mz na ng nz ph pl pt rw sa sg sw sz th tz vn za zm znz zw'.split(' ');
    expect(/the accepted codes are ([a-z]+(?:, [a-z]+)*)/.exec(text)?.[1]?.split(', ')).toEqual(codes);
  });
});

describe("the sync's table", () => {
  it('says its last four columns count windows', () => {
    const text = formatSummary({
      run_id: 'r',
      account: 'a',
      outcome: 'partial',
      started_ms: 0,
      ended_ms: 1000,
      requests: 3,
      retries: 0,
      http429ByBucket: {},
      streams: { trips: { rows: 1234, requests: 3, windows: { done: 2, incomplete: 1 } } },
      errors: [],
    });
    const lines = text.split('\n');
    const names = lines.findIndex((l) => /^stream +rows +requests/.test(l));
    const [over, under] = [lines[names - 1]!, lines[names]!];
    for (const col of ['done', 'incomplete', 'flagged', 'failed']) {
      const end = under.search(new RegExp(`\\b${col}\\b`)) + col.length;
      expect(over.slice(end - 'windows'.length, end), col).toBe('windows');
    }
    expect(lines[names + 1]).toMatch(/^trips +1234 +3 +2 +1 +0 +0$/);
  });
});
