/**
 * Issue 25, item 4: an XLSX file's About sheet states the range's coverage (of each stream the
 * report reads synced by day: test/reports/about-streams.test.ts) and, when an endpoint
 * the report reads was refused, why; costs and cost_departments carry coverage columns. The simulator's fleet ends 20 April; the clock is just past 24 April
 * (every window settled). A sync of 25 March – 20 April leaves March synced on 7 of its 31 days
 * and April on 20 of its 24 ended days; the account has no GET /vehicles/activity (404). The
 * expected lines are worked out here from those dates, not read from the code under test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import XLSX from 'xlsx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fleet: { seed: 11, vehicles: 3, days: 60, endDay: '2026-04-20' } });
  h.sim.setAccess({ missing: ['GET /vehicles/activity'] });
  const run = await h.sync({ fromDay: '2026-03-25', toDay: h.lastDay });
  expect(run.outcome).toBe('ok');
}, 120_000);
afterAll(() => h?.close());

/** The About sheet of a report's XLSX export, as key → value. */
async function about(name: string, raw: Record<string, string>): Promise<Record<string, string>> {
  const def = requireReport(name);
  const scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
  const path = join(h.dir, `${name}-${Object.values(raw).join('-')}.xlsx`);
  const con = await h.db.connect();
  try {
    await exportReport(con, def, scope, parseReportParams(raw, def, scope), 'xlsx', path);
  } finally {
    con.closeSync();
  }
  const wb = XLSX.read(readFileSync(path), { type: 'buffer' });
  const rows = XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][];
  return Object.fromEntries(rows.map((r) => [String(r[0]), String(r[1])]));
}

describe('XLSX About sheet: coverage and refused endpoints', () => {
  it("a per-month report over March–April: 27 of 55 days synced, each month's share, per stream it reads", async () => {
    const a = await about('costs', { from: '2026-03-10', to: '2026-04-05' });
    // March: 25–31 of 31 days; April: 1–20 of the 24 days ended by the end of 24 April (whole months: a
    // report per month covers them all); the sync pulled every stream over those days
    const synced =
      '27 of 55 days synced; March 2026 22.6 % (7 of 31 days); April 2026 83.3 % (20 of 24 days)';
    expect(Object.fromEntries(Object.entries(a).filter(([k]) => k.startsWith('Coverage')))).toEqual({
      'Coverage: odometer': synced,
      'Coverage: fuel': synced,
      // the fleet has no electric vehicle: the EV energy stream never pulled a window
      'Coverage: ev_energy': expect.stringMatching(/^never synced for this account/),
      'Coverage: visits': synced,
    });
    expect(a['Endpoints refused']).toBe('none: every endpoint this report reads answered');
  });

  it('a per-day report over a range inside the synced days: complete', async () => {
    const a = await about('trips', { from: '2026-04-01', to: '2026-04-10' });
    expect(a['Coverage: trips']).toBe('10 of 10 days synced (complete)');
    expect(a.Coverage).toBeUndefined();
  });

  it('costs and cost_departments carry the same coverage per month: 7 of 31 and 20 of 24 days', async () => {
    const share = (n: number, of: number) => Math.round((n / of) * 10_000) / 10_000;
    const want = {
      '2026-03': { coverage: 'partial', covered_share: share(7, 31) },
      '2026-04': { coverage: 'partial', covered_share: share(20, 24) },
    };
    const costs = await h.report('costs', { from: '2026-03-10', to: '2026-04-05' });
    // every vehicle × both months is a row
    expect(costs).toHaveLength(h.fleet.vehicles.length * 2);
    for (const r of costs) expect(r).toMatchObject(want[r.period as keyof typeof want]);
    const depts = await h.report('cost_departments', { from: '2026-03-10', to: '2026-04-05' });
    expect(depts.length).toBeGreaterThan(0);
    for (const r of depts) expect(r).toMatchObject(want[r.period as keyof typeof want]);
  });

  it('utilisation, whose endpoint the account does not have: the reason is stated', async () => {
    const a = await about('utilisation', { month: '2026-04' });
    expect(a['Endpoints refused']).toMatch(
      /^GET \/vehicles\/activity: not available on this account \(since .+\); what this report takes from it is blank \(unknown\) or as last synced \(a list: geofences, drivers\), never 0$/,
    );
  });
});
