/**
 * JSON pages of a report (limit/offset, total, totals over all rows) against the complete CSV of
 * the same filter, and "complete through" following the ledger although the server caches it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { NOW, openFixture, parseCsv, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let srv: RunningServer;

beforeAll(async () => {
  fx = await openFixture();
  const config = loadConfig({ FLEETSYNC_ACCOUNT: 'acme', FLEET_TIMEZONE: 'UTC', FLEETSYNC_PORT: '0' });
  srv = await startServer({ db: fx.db, config, log: silentLogger, now: () => NOW });
});
afterAll(async () => {
  await srv?.close();
  fx?.close();
});

const get = (path: string) => fetch(new URL(path, srv.url));
interface Page {
  total: number;
  offset: number;
  limit: number;
  totals: Record<string, number>;
  rows: Record<string, unknown>[];
  complete_through: string | null;
}
const Q = 'from=2026-03-01&to=2026-04-30';

async function csvRows(name: string) {
  const res = await get(`/api/reports/${name}.csv?${Q}`);
  expect(res.status).toBe(200);
  const [header, ...rows] = parseCsv((await res.text()).replace(/^\uFEFF/, ''));
  return { header: header!, rows, rowsHeader: res.headers.get('x-fleetsync-rows') };
}

describe('JSON paging', () => {
  it('a page holds the CSV rows at its offset; total and totals cover every row', async () => {
    const csv = await csvRows('trips');
    expect(csv.rows.length).toBeGreaterThanOrEqual(2);
    const res = await get(`/api/reports/trips?${Q}&limit=1&offset=1`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as Page;
    expect(page.total).toBe(csv.rows.length);
    expect(res.headers.get('x-fleetsync-rows')).toBe(String(csv.rows.length));
    expect(page.offset).toBe(1);
    expect(page.limit).toBe(1);
    expect(page.rows.map((r) => r.trip_id)).toEqual(csv.rows.slice(1, 2).map((r) => r[0]));
    const km = csv.header.indexOf('distance_km');
    expect(page.totals.distance_km).not.toBe(Number(page.rows[0]!.distance_km));
    const sum = csv.rows.reduce((s, r) => s + (r[km] === '' ? 0 : Number(r[km])), 0);
    expect(page.totals.distance_km).toBeCloseTo(Math.round(sum * 1000) / 1000, 6);
  });

  it('a total beside blank values says how many rows it leaves out (paged or whole)', async () => {
    // January and February were never synced: their mileage rows are blank, and the total of the
    // known months must not read as the whole
    const q = 'from=2026-01-01&to=2026-04-30';
    const res = await get(`/api/reports/mileage.csv?${q}`);
    const [header, ...rows] = parseCsv((await res.text()).replace(/^\uFEFF/, ''));
    const km = header!.indexOf('distance_km');
    const blank = rows.filter((r) => r[km] === '').length;
    expect(blank).toBeGreaterThan(0);
    expect(blank).toBeLessThan(rows.length);
    const known = rows.reduce((s, r) => s + (r[km] === '' ? 0 : Number(r[km])), 0);
    for (const paging of ['', '&limit=1&offset=1']) {
      const page = (await (await get(`/api/reports/mileage?${q}${paging}`)).json()) as Page & {
        totals_blank: Record<string, number>;
      };
      expect(page.totals_blank.distance_km, paging || 'whole').toBe(blank);
      expect(page.totals.distance_km, paging || 'whole').toBeCloseTo(Math.round(known * 1000) / 1000, 6);
    }
  });

  it('the default page is 1,000 rows and the CSV stays complete', async () => {
    const page = (await (await get(`/api/reports/tolls?${Q}`)).json()) as Page;
    const csv = await csvRows('tolls');
    expect(page.limit).toBe(1000);
    expect(page.total).toBe(csv.rows.length);
    expect(page.rows.length).toBe(Math.min(1000, csv.rows.length));
    expect(csv.rowsHeader).toBe(String(csv.rows.length));
  });

  it('an offset past the end gives no rows but the full total', async () => {
    const csv = await csvRows('trips');
    const page = (await (await get(`/api/reports/trips?${Q}&offset=100000`)).json()) as Page;
    expect(page.rows).toEqual([]);
    expect(page.total).toBe(csv.rows.length);
  });

  it('a bad page is a 400, and a download takes no page', async () => {
    for (const q of ['limit=0', 'limit=100001', 'offset=x', 'limit=1%20OR%201%3D1'])
      expect((await get(`/api/reports/trips?${Q}&${q}`)).status, q).toBe(400);
    expect((await get(`/api/reports/trips.csv?${Q}&limit=5`)).status).toBe(400);
  });

  it('"complete through" follows the ledger although it is cached', async () => {
    const before = ((await (await get(`/api/reports/vehicles?${Q}`)).json()) as Page).complete_through;
    expect(before).not.toBeNull();
    await fx.con.run("UPDATE ledger SET status = 'done' WHERE status = 'incomplete'");
    const after = ((await (await get(`/api/reports/vehicles?${Q}`)).json()) as Page).complete_through;
    expect(after).not.toBeNull();
    expect(after! > before!).toBe(true);
  });
});
