/**
 * The XLSX About sheet states the coverage of the streams THAT report reads (src/reports/needs.ts),
 * one line per stream synced by day, read back with exceljs. On the hand fixture (Sydney; the clock
 * in May, so every day of March–April has ended: 31 + 30 = 61 days) the odometer is settled on
 * every day (vehicle 1's windows cover 1 March – 1 May), the trips, visits and fuel streams on
 * none until the helpers mark them: markFleetStreamsSynced settles the fleet's trips and visits
 * for March–April, settleMarch the fuel counters and level for March (31 days); a stream without
 * any window in the ledger says it was never synced. Expected lines worked out from those rows.
 */
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, type ReportScope } from '../../src/reports/run.ts';
import {
  ACCOUNT,
  NOW,
  ZONE,
  markFleetStreamsSynced,
  openFixture,
  settleMarch,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
const RANGE = { from: '2026-03-01', to: '2026-04-30' };
let n = 0;

beforeAll(async () => {
  fx = await openFixture();
});
afterAll(() => fx?.close());

/** The About sheet's Coverage lines of a report's XLSX export, as key → value. */
async function coverage(name: string, range = RANGE): Promise<Record<string, string>> {
  const def = requireReport(name);
  const path = join(fx.dir, `${name}-${++n}.xlsx`);
  await exportReport(fx.con, def, scope, parseReportParams(range, def, scope), 'xlsx', path);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  const out: Record<string, string> = {};
  wb.getWorksheet('About')!.eachRow((row) => {
    const k = String(row.getCell(1).value);
    if (k.startsWith('Coverage')) out[k] = String(row.getCell(2).value);
  });
  return out;
}

const NEVER = expect.stringMatching(/^never synced for this account: no window of it pulled/);
const ALL = '61 of 61 days synced (complete)';

describe('XLSX About: the coverage of the streams the report reads', () => {
  it('trips: the trip stream (not synced), not the odometer (complete)', async () => {
    expect(await coverage('trips')).toEqual({ 'Coverage: trips': NEVER });
    expect(await coverage('mileage')).toEqual({ 'Coverage: odometer': ALL });
  });

  it('kpis: a line per stream it reads; each moves when its own stream is synced', async () => {
    expect(await coverage('kpis')).toEqual({
      'Coverage: odometer': ALL,
      'Coverage: fuel': NEVER,
      'Coverage: visits': NEVER,
      'Coverage: trips': NEVER,
      'Coverage: bookings': NEVER,
    });
    await markFleetStreamsSynced(fx.con);
    await settleMarch(fx.con);
    expect(await coverage('kpis')).toEqual({
      'Coverage: odometer': ALL,
      'Coverage: fuel': '31 of 61 days synced; April 2026 0 % (0 of 30 days)',
      'Coverage: visits': ALL,
      'Coverage: trips': ALL,
      'Coverage: bookings': NEVER,
    });
    expect(await coverage('trips')).toEqual({ 'Coverage: trips': ALL });
    // synced, but not on the range's one ended day (1 May; the clock is 2 May 10:00 local)
    expect(await coverage('trips', { from: '2026-05-01', to: '2026-05-01' })).toEqual({
      'Coverage: trips': '0 of 1 days synced; May 2026 0 % (0 of 1 days)',
    });
  });

  it('a report of lists only (no stream synced by day) says so', async () => {
    expect(await coverage('setup_health')).toEqual({
      Coverage: 'not applicable: this report reads no stream synced by day',
    });
  });
});
