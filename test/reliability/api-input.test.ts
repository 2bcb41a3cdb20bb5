/**
 * Hostile input at the dashboard API, beyond the cases in test/server: impossible dates, ids that
 * are not ids, SQL-looking values in every parameter, absurd ranges and limits, path traversal in
 * report and download names. Every one gets a 400 (or 404) with a message, never a 500 and never
 * a file from outside the dashboard; download names are built only from validated values; and
 * the fixture's data is untouched afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { NOW, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let srv: RunningServer;
let counts: string;

const tableCounts = async () => {
  const con = await fx.db.connect();
  try {
    const r = await con.runAndReadAll(
      'SELECT (SELECT count(*) FROM trips) AS trips, (SELECT count(*) FROM vehicles) AS vehicles, (SELECT count(*) FROM ledger) AS ledger',
    );
    return JSON.stringify(r.getRowObjectsJson());
  } finally {
    con.closeSync();
  }
};

beforeAll(async () => {
  fx = await openFixture();
  counts = await tableCounts();
  srv = await startServer({
    db: fx.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: 'acme', FLEET_TIMEZONE: 'UTC', FLEETSYNC_PORT: '0' }),
    log: silentLogger,
    now: () => NOW,
  });
});
afterAll(async () => {
  await srv?.close();
  fx?.close();
});

const get = (path: string) => fetch(new URL(path, srv.url));

describe('every report parameter is validated', () => {
  it.each([
    ['/api/reports/mileage?from=2026-02-30', /from: is not a calendar day/],
    ['/api/reports/mileage?from=2026-04-01T00:00:00Z', /from: must be a calendar day/],
    ['/api/reports/mileage?to=20260401', /to: must be a calendar day/],
    ['/api/reports/mileage?from=1900-01-01&to=2099-12-31', /longer than the 1100 days/],
    ['/api/reports/mileage?month=2026-4', /month: must be a month/],
    ["/api/reports/mileage?month=2026-04'--", /month: must be a month/],
    ['/api/reports/tolls?vehicle=-1', /vehicle: must be a vehicle id/],
    ['/api/reports/tolls?vehicle=1e3', /vehicle: must be a vehicle id/],
    ['/api/reports/tolls?vehicle=1234567890123456', /vehicle: must be a vehicle id/],
    ['/api/reports/tolls?vehicle=0x10', /vehicle: must be a vehicle id/],
    ['/api/reports/tolls?department=' + 'x'.repeat(201), /department: .*at most 200 characters/],
    ['/api/reports/tolls?department=Sales%0AEast', /department: .*without control characters/],
    ['/api/reports/tolls?department=Sales%00', /department: .*without control characters/],
    ['/api/reports/trend?grain=day%3B%20DELETE%20FROM%20ledger', /grain: must be day, week or month/],
    ['/api/reports/top_vehicles?limit=0', /limit: must be a whole number 1–1000/],
    ['/api/reports/top_vehicles?limit=100000', /limit: must be a whole number 1–1000/],
    ['/api/reports/top_vehicles?limit=1%20OR%201%3D1', /limit: must be a whole number/],
    ['/api/reports/mileage?limit=0', /limit: must be a whole number 1–100000/],
    ['/api/reports/mileage?offset=-1', /offset: must be a whole number/],
    ['/api/reports/mileage.csv?limit=5', /limit: not a parameter of the mileage report/],
    ['/api/reports/mileage?from[]=2026-04-01', /unknown parameter|from/],
    ['/api/reports/mileage?__proto__=x', /unknown parameter/],
    ['/api/reports/MILEAGE', /unknown report/],
    ['/api/reports/mileage.csv.exe', /unknown report/],
    ['/api/reports/' + 'a'.repeat(41), /unknown report/],
  ])('%s → 400 naming the problem', async (path, message) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('E_BAD_REQUEST');
    expect(body.message).toMatch(message);
  });

  it('left the data untouched', async () => {
    expect(await tableCounts()).toBe(counts);
  });
});

describe('names and paths', () => {
  it.each([
    '/api/reports/..%2F..%2Fpackage.json',
    '/api/reports/%2e%2e%2f%2e%2e%2fpackage.json',
    '/api/reports/mileage.csv%00.txt',
    '/..%2F..%2Fpackage.json',
    '/js/..%2F..%2F..%2Fpackage.json',
    '/js/%2e%2e/%2e%2e/package.json',
    '/vendor/..%2F..%2Fpackage.json',
    '/%2e%2e/%2e%2e/etc/passwd',
  ])('%s serves nothing from outside the dashboard', async (path) => {
    const res = await get(path);
    expect([400, 403, 404]).toContain(res.status);
    const text = await res.text();
    expect(text).not.toMatch(/"devDependencies"|root:x:0:0/);
  });

  it.each(['Sales%27%3B%20DROP%20TABLE%20trips%3B--', 'a%2F*b*%2F', 'x'.repeat(200)])(
    'department=%s is only a name (bound): 200, no rows',
    async (department) => {
      const res = await get(`/api/reports/tolls?department=${department}`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { rows: unknown[] }).rows).toEqual([]);
    },
  );

  it('a CSV download is named from validated values only', async () => {
    const res = await get(
      '/api/reports/mileage.csv?from=2026-04-01&to=2026-04-30&vehicle=1&department=a%2Fb%20(c)',
    );
    expect(res.status).toBe(200);
    const cd = res.headers.get('content-disposition') ?? '';
    expect(cd).toMatch(/^attachment; filename="?mileage_2026-04-01_2026-04-30_v1\.csv"?$/);
    await res.arrayBuffer();
  });
});
