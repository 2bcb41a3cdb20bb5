/**
 * A refused endpoint marks every report that reads its stream and no other (src/reports/needs.ts,
 * checked against the reports' SQL by test/reports/needs.test.ts), on the hand fixture served over
 * HTTP: GET /geofences refused (403) → the toll, site, kpi, trend and cost reports answer
 * `unavailable` and the dashboard's note above them names it; POST /vehicles/ev-consumption
 * missing (404) → costs and cost_departments too; GET /fuel/level/history refused → fuel_drops
 * only, not the fuel reports, which do not read the level history. Before any refusal none is
 * marked. The refusals are stored by the sync's own writer (recordAccess), as a run records them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import type { ReportAnswer } from '../../src/server/api-types.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { recordAccess } from '../../src/sync/access.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import {
  ACCOUNT,
  NOW,
  markFleetStreamsSynced,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let srv: RunningServer;
/** The dashboard's note above a section whose answer names refused endpoints (dashboard/js/page.js). */
let unavailableMessage: (r: ReportAnswer) => string | null;

beforeAll(async () => {
  const page: string = '../../dashboard/js/page.js';
  ({ unavailableMessage } = (await import(page)) as { unavailableMessage: typeof unavailableMessage });
  fx = await openFixture();
  await markFleetStreamsSynced(fx.con);
  const config = loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC', FLEETSYNC_PORT: '0' });
  srv = await startServer({ db: fx.db, config, log: silentLogger, now: () => NOW });
});
afterAll(async () => {
  await srv?.close();
  fx?.close();
});

const Q = '?from=2026-03-01&to=2026-04-30';
const answer = async (report: string) => {
  const r = await fetch(new URL(`/api/reports/${report}${Q}`, srv.url));
  expect(r.status, report).toBe(200);
  return (await r.json()) as ReportAnswer;
};
const refused = async (report: string) => (await answer(report)).unavailable.map((e) => e.endpoint);

const GEOFENCES = [
  'tolls',
  'toll_gantries',
  'toll_charges',
  'kpis',
  'trend',
  'top_vehicles',
  'costs',
  'cost_departments',
  'site_visits',
  'site_activity',
];
const EV = ['costs', 'cost_departments'];
const WHOLE = ['mileage', 'fuel', 'fuel_windows', 'refuels', 'trips', 'logbook_years', 'service_due'];

async function refuse(endpoint: string, state: 'not_permitted' | 'not_available') {
  await recordAccess(fx.con, {
    account: ACCOUNT,
    nowMs: NOW,
    view: {
      answered: [],
      refused: [{ endpoint, state, status: state === 'not_permitted' ? 403 : 404, message: 'x' }],
    },
    defs: BUILTIN_STREAMS,
    log: silentLogger,
  });
}

describe('a refused endpoint, on every report that reads its stream', () => {
  it('before any refusal no report is marked', async () => {
    for (const report of [...GEOFENCES, ...WHOLE, 'fuel_drops'])
      expect(await refused(report), report).toEqual([]);
  });

  it('GET /geofences refused: the toll, site, kpi, trend and cost reports say so; the others are whole', async () => {
    await refuse('GET /geofences', 'not_permitted');
    for (const report of GEOFENCES) expect(await refused(report), report).toEqual(['GET /geofences']);
    for (const report of [...WHOLE, 'fuel_drops']) expect(await refused(report), report).toEqual([]);
    const kpis = await answer('kpis');
    expect(unavailableMessage(kpis)).toMatch(
      /^Not available: GET \/geofences is not permitted for these credentials \(since 2026-05-02; geofences not synced\)\./,
    );
    expect(unavailableMessage(await answer('mileage'))).toBeNull();
    // the XLSX About sheet states it too
    const res = await fetch(new URL(`/api/reports/tolls.xlsx${Q}`, srv.url));
    const wb = XLSX.read(Buffer.from(await res.arrayBuffer()), { type: 'buffer' });
    const about = Object.fromEntries(
      (XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][]).map((r) => [r[0], r[1]]),
    );
    expect(about['Endpoints refused']).toMatch(/^GET \/geofences: not permitted for these credentials/);
  });

  it('the EV energy endpoint missing: costs and cost_departments name it beside the geofences', async () => {
    await refuse('POST /vehicles/ev-consumption', 'not_available');
    for (const report of EV)
      expect((await refused(report)).sort(), report).toEqual([
        'GET /geofences',
        'POST /vehicles/ev-consumption',
      ]);
    for (const report of ['kpis', 'tolls', ...WHOLE])
      expect(await refused(report), report).not.toContain('POST /vehicles/ev-consumption');
  });

  it('the fuel level history refused: fuel_drops only, not the fuel reports', async () => {
    await refuse('GET /fuel/level/history/{registration}', 'not_permitted');
    expect(await refused('fuel_drops')).toEqual(['GET /fuel/level/history/{registration}']);
    for (const report of ['fuel', 'fuel_windows', 'refuels', 'fuel_reconciliation', 'kpis', 'costs'])
      expect(await refused(report), report).not.toContain('GET /fuel/level/history/{registration}');
  });
});
