/**
 * "Complete through" names the last complete local day, inclusive, in words and ISO — in the
 * kpis, the API headers and status, the export manifest and `fleetsync status` — and a snapshot
 * that failed in the last run holds it back (issue 12 item 3). Ranges beyond the data (item 2): a
 * future month is refused (export: exit 2; API: 400 naming the parameter); a range reaching past
 * today says up to when it holds data. The clock is the harness's, injected everywhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { main } from '../../src/cli.ts';
import { silentLogger } from '../../src/log.ts';
import { reportMeta } from '../../src/reports/run.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { openDatabase } from '../../src/store/db.ts';
import { addDays, localDate } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const DAY = 86_400_000;
let h: Harness;
let srv: RunningServer;

beforeAll(async () => {
  // History ends with 20 Apr 2026 (Sydney); the clock stands at 25 Apr 00:00, every window settled.
  h = await startHarness({ fleet: { seed: 31, vehicles: 4, days: 20, endDay: '2026-04-20' } });
  expect((await h.sync()).outcome).toBe('ok');
  const config = loadConfig({
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_PORT: '0',
  });
  srv = await startServer({ db: h.db, config, log: silentLogger, now: h.now });
}, 120_000);
afterAll(async () => {
  await srv?.close();
  await h?.close();
});

const get = (path: string) => fetch(new URL(path, srv.url));

async function cli(...argv: string[]) {
  return cliIn({ FLEET_TIMEZONE: h.fleet.timezone }, ...argv);
}

async function cliIn(env: Record<string, string>, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: { FLEETSYNC_DB: h.dbPath, FLEETSYNC_ACCOUNT: ACCOUNT, ...env },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stopSignal: new AbortController().signal,
    now: h.now,
  });
  return { code, stdout, stderr };
}

describe('complete through: the last complete local day, inclusive', () => {
  it('in the kpis, the JSON API, its headers and /api/status (20 Apr is complete, not 21 Apr)', async () => {
    expect(localDate(h.now(), h.fleet.timezone)).toBe('2026-04-25');
    const res = await get('/api/reports/kpis?from=2026-04-01&to=2026-04-20');
    expect(res.status).toBe(200);
    // The instant stays (an exclusive end, for integrations); the day beside it is inclusive.
    expect(res.headers.get('x-fleetsync-complete-through')).toBe('2026-04-21T00:00:00+10:00');
    expect(res.headers.get('x-fleetsync-complete-through-day')).toBe('2026-04-20');
    const body = (await res.json()) as Record<string, unknown> & { rows: Record<string, unknown>[] };
    expect(body.complete_through_text).toBe('complete through 20 Apr 2026 (local)');
    expect(body.complete_through_day).toBe('2026-04-20');
    expect(body.rows[0]!.complete_through_day).toBe('2026-04-20');
    const st = (await (await get('/api/status')).json()) as Record<string, unknown>;
    expect(st.complete_through_text).toBe('complete through 20 Apr 2026 (local)');
    expect(st.complete_through_day).toBe('2026-04-20');
  });

  it('API: a future month is refused with 400 naming month; a future from names from; bookings may look ahead', async () => {
    const future = await get('/api/reports/mileage?month=2026-05');
    expect(future.status).toBe(400);
    expect(((await future.json()) as { message: string }).message).toMatch(
      /^month: 2026-05 is in the future/,
    );
    const from = await get('/api/reports/trips.csv?from=2026-04-26&to=2026-04-30');
    expect(from.status).toBe(400);
    expect(((await from.json()) as { message: string }).message).toMatch(
      /^from: 2026-04-26 is in the future/,
    );
    expect((await get('/api/reports/carpool?month=2026-05')).status).toBe(200);
  });

  it('API: a range reaching past today says up to when it holds data (body and header)', async () => {
    const res = await get('/api/reports/mileage?month=2026-04');
    expect(res.status).toBe(200);
    const note = res.headers.get('x-fleetsync-range-note');
    expect(note).toBe(
      'the range runs to 2026-04-30, past today (2026-04-25 in Australia/Sydney): it holds data up to now, complete through 20 Apr 2026 (local)',
    );
    expect(((await res.json()) as { range_note: string }).range_note).toBe(note);
    const past = await get('/api/reports/mileage?month=2026-03');
    expect(past.headers.get('x-fleetsync-range-note')).toBeNull();
  });

  it('export: a future month exits 2 with no file; the manifest names the day and the range note; status says it', async () => {
    await srv.close();
    h.db.close(); // the CLI opens the file itself
    const out = join(h.dir, 'm.csv');
    const refused = await cli('export', 'mileage', '--month', '2026-05', '--out', out);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /--month: 2026-05 is in the future \(today is 2026-04-25 in Australia\/Sydney\)/,
    );
    expect(existsSync(out)).toBe(false);
    const ok = await cli('export', 'mileage', '--month', '2026-04', '--out', out);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('complete through 20 Apr 2026 (local)');
    expect(ok.stdout).toContain('note: the range runs to 2026-04-30, past today');
    const manifest = JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8')) as Record<string, unknown>;
    expect(manifest.complete_through).toBe('2026-04-21T00:00:00+10:00');
    expect(manifest.complete_through_day).toBe('2026-04-20');
    expect(manifest.complete_through_text).toBe('complete through 20 Apr 2026 (local)');
    expect(manifest.range_note).toMatch(/^the range runs to 2026-04-30, past today \(2026-04-25/);
    const st = await cli('status');
    expect(st.stdout).toContain(
      `account ${ACCOUNT} (Australia/Sydney): complete through 20 Apr 2026 (local)`,
    );
    const js = JSON.parse((await cli('status', '--json')).stdout) as {
      complete_through: Record<string, unknown>[];
    };
    expect(js.complete_through[0]).toMatchObject({ account: ACCOUNT, complete_through_day: '2026-04-20' });
  });

  it("export and status go by the account's recorded zone, not a FLEET_TIMEZONE that differs", async () => {
    // In Pago Pago (UTC−11) it is still the 24th when it is the 25th in Sydney: "today" in the
    // wrong zone would refuse the account's own today as the future.
    const other = 'Pacific/Pago_Pago';
    expect(localDate(h.now(), other)).toBe('2026-04-24');
    const out = join(h.dir, 'today.csv');
    const today = await cliIn(
      { FLEET_TIMEZONE: other },
      'export',
      'trips',
      '--from',
      '2026-04-25',
      '--out',
      out,
    );
    expect(today.stderr).toBe('');
    expect(today.code).toBe(0);
    const tomorrow = await cliIn(
      { FLEET_TIMEZONE: other },
      'export',
      'trips',
      '--from',
      '2026-04-26',
      '--out',
      out,
    );
    expect(tomorrow.code).toBe(2);
    expect(tomorrow.stderr).toContain('(today is 2026-04-25 in Australia/Sydney)');
    const st = await cliIn({}, 'status'); // FLEET_TIMEZONE unset: the default zone is not the account's
    expect(st.stdout).toContain(`(times in ${h.fleet.timezone})`);
  });
});

describe('a snapshot that failed in the last run holds "complete through" back', () => {
  it('to the day before the last whole vehicles snapshot; released once it succeeds again', async () => {
    h.db = await openDatabase(h.dbPath);
    h.deps.db = h.db;
    const zone = h.fleet.timezone;
    const dayOf = async () => {
      const con = await h.db.connect();
      try {
        return (await reportMeta(con, { account: ACCOUNT, zone, nowMs: h.now() })).complete_through_day;
      } finally {
        con.closeSync();
      }
    };
    // An incremental run now: its vehicles snapshot is whole; then 5 days on, one whose snapshot fails.
    const wholeAt = h.now();
    expect((await h.sync({ fromDay: undefined, toDay: undefined })).outcome).toBe('ok');
    const afterWhole = await dayOf();
    h.advance(5 * DAY);
    h.sim.setFaults({ fieldFault: { kind: 'vehicle', field: 'registration' } });
    const partial = await h.sync({ fromDay: undefined, toDay: undefined });
    expect(partial.outcome).toBe('partial');
    expect(partial.errors.some((e) => e.stream === 'vehicles')).toBe(true);
    // Every window of that run is done: only the snapshot failed.
    expect(
      Object.values(partial.streams).every((s) => !s.windows.failed || s === partial.streams.vehicles),
    ).toBe(true);
    const held = await dayOf();
    expect(held).toBe(addDays(localDate(wholeAt, zone), -1));
    // The next run with a whole snapshot releases it, past where it was held.
    h.sim.setFaults({});
    expect((await h.sync({ fromDay: undefined, toDay: undefined })).outcome).toBe('ok');
    const released = await dayOf();
    expect(released! > held!).toBe(true);
    expect(released! >= afterWhole!).toBe(true);
  }, 120_000);
});
