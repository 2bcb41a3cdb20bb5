/**
 * What the server says about endpoints the account may not read or does not have: a subuser
 * refused GET /drivers (403) on an account without GET /vehicles/activity (404), synced over HTTP,
 * then served. /api/status and /healthz name both (and stay ok: they are facts, not failures);
 * the reports that need them carry `unavailable` and blank figures, never 0; the others do not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetClient } from '../../src/api/client.ts';
import type { RunningServer } from '../../src/server/start.ts';
import type { ReportAnswer, StatusAnswer } from '../../src/server/api-types.ts';
import { serveHarness } from '../helpers/harness-dashboard.ts';
import { syncRestrictedSubuser } from '../helpers/restricted.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let sub: FleetClient;
let srv: RunningServer;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 4, days: 10 } });
  const synced = await syncRestrictedSubuser(h);
  sub = synced.client;
  const run = synced.run;
  expect(run.skipped?.map((s) => [s.stream, s.state])).toEqual([
    ['drivers', 'not_permitted'],
    ['activity', 'not_available'],
  ]);
  srv = await serveHarness(h);
}, 120_000);
afterAll(async () => {
  await srv?.close();
  await sub?.close();
  await h?.close();
});

const get = async <T>(path: string) => {
  const r = await fetch(new URL(path, srv.url));
  expect(r.status, path).toBe(200);
  return (await r.json()) as T;
};
const range = () => `from=${h.firstDay}&to=${h.lastDay}`;

describe('endpoints refused, as the server shows them', () => {
  it('/api/status names them per account and its verdict stays ok', async () => {
    const st = await get<StatusAnswer>('/api/status');
    expect(st.verdict.exit_code).toBe(0);
    expect(st.endpoints_refused.map((e) => [e.account, e.endpoint, e.text, e.streams])).toEqual([
      [ACCOUNT, 'GET /drivers', 'not permitted for these credentials', ['drivers']],
      [ACCOUNT, 'GET /vehicles/activity', 'not available on this account', ['activity']],
    ]);
    expect(st.last_run?.skipped?.map((s) => [s.stream, s.endpoint, s.state])).toEqual([
      ['drivers', 'GET /drivers', 'not_permitted'],
      ['activity', 'GET /vehicles/activity', 'not_available'],
    ]);
  });

  it('/healthz lists them in its details and stays ok', async () => {
    const r = await fetch(new URL('/healthz', srv.url));
    const body = (await r.json()) as {
      status: string;
      checks: { accounts: { endpoints_refused: unknown[] }[] };
    };
    expect(r.status).toBe(200);
    expect(body.status).toBe('ok');
    expect(body.checks.accounts[0]!.endpoints_refused).toEqual([
      expect.objectContaining({ endpoint: 'GET /drivers', state: 'not_permitted' }),
      expect.objectContaining({ endpoint: 'GET /vehicles/activity', state: 'not_available' }),
    ]);
  });

  it('a report that needs one says not available and shows blanks, never 0; the others are whole', async () => {
    const util = await get<ReportAnswer>(`/api/reports/utilisation?${range()}`);
    expect(util.unavailable.map((e) => e.endpoint)).toEqual(['GET /vehicles/activity']);
    expect(util.rows.length).toBeGreaterThan(0);
    for (const r of util.rows) expect([r.driving_h, r.idle_h], JSON.stringify(r)).toEqual([null, null]);
    const drivers = await get<ReportAnswer>(`/api/reports/drivers?${range()}`);
    expect(drivers.unavailable.map((e) => e.endpoint)).toEqual(['GET /drivers']);
    const mileage = await get<ReportAnswer>(`/api/reports/mileage?${range()}`);
    expect(mileage.unavailable).toEqual([]);
    expect(mileage.rows.some((r) => Number(r.distance_km) > 0)).toBe(true);

    const csv = await (await fetch(new URL(`/api/reports/utilisation.csv?${range()}`, srv.url))).text();
    const [head, ...lines] = csv.trim().split(/\r?\n/);
    const col = head!.split(',').indexOf('driving_h');
    expect(col).toBeGreaterThanOrEqual(0);
    expect(lines.length).toBe(util.rows.length);
    for (const l of lines) expect(l.split(',')[col]).toBe('');
  });
});
