/**
 * The XLSX download and CSV human headers over HTTP: /api/reports/<name>.xlsx is the workbook of
 * `fleetsync export --format xlsx` (read back with SheetJS; its totals are the JSON's), and
 * `?headers=human` changes only the CSV header row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { NOW, ZONE, openFixture, parseCsv, type FixtureDb } from '../helpers/report-fixture.ts';

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
const Q = '?from=2026-03-01&to=2026-04-30';

describe('XLSX and human-header downloads', () => {
  it('/api/reports/mileage.xlsx: a workbook with typed cells whose totals are the JSON totals', async () => {
    const res = await get(`/api/reports/mileage.xlsx${Q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(res.headers.get('content-disposition')).toMatch(/filename="?mileage_2026-03-01_2026-04-30\.xlsx/);
    expect(res.headers.get('x-fleetsync-zone')).toBe(ZONE);
    const wb = XLSX.read(Buffer.from(await res.arrayBuffer()), { type: 'buffer' });
    const rows = XLSX.utils.sheet_to_json(wb.Sheets.Report!, { header: 1 }) as unknown[][];
    const json = (await (await get(`/api/reports/mileage${Q}`)).json()) as {
      rows: unknown[];
      totals: Record<string, number>;
      totals_blank: Record<string, number>;
    };
    expect(rows[0]).toContain('Distance (km)');
    // header, rows, totals, and (some mileage rows are blank) the partial note under the totals
    expect(json.totals_blank.distance_km).toBeGreaterThan(0);
    expect(rows).toHaveLength(json.rows.length + 3);
    const [totals, note] = rows.slice(-2) as [unknown[], unknown[]];
    expect(totals[0]).toBe('Total');
    const distance = rows[0]!.indexOf('Distance (km)');
    expect(totals[distance]).toBeCloseTo(json.totals.distance_km!, 6);
    const n = json.totals_blank.distance_km!;
    expect(note[distance]).toBe(`partial: ${n} row${n === 1 ? '' : 's'} unknown`);
    expect(wb.SheetNames).toContain('About');
  });

  it('?headers=human on a CSV: labels with units, same rows; without it the machine headers', async () => {
    const human = parseCsv((await (await get(`/api/reports/fuel.csv${Q}&headers=human`)).text()).slice(1));
    const machine = parseCsv((await (await get(`/api/reports/fuel.csv${Q}`)).text()).slice(1));
    expect(machine[0]).toContain('fuel_used_l');
    expect(human[0]).toContain('Fuel used (L)');
    expect(human[0]).not.toContain('fuel_used_l');
    expect(human.slice(1)).toEqual(machine.slice(1));
  });
});
