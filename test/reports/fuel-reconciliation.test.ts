/**
 * fuel_reconciliation on a hand-filled database (zone UTC, so a local month is a calendar month
 * of UTC): litres filled (the fills, where the fuel_fills stream is synced) against litres used
 * (the fuel report's figure), and the coverage of each vehicle-month: of its ended days, those on
 * which both its fills and its fuel stream are settled (issue 25 item 4). Every number below is
 * worked out by hand from the rows inserted here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { rebuildFacts } from '../../src/store/facts.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

const ZONE = 'UTC';
const ACCOUNT = 'recon';
const T = (iso: string) => Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
const NOW = Date.parse('2026-06-02T12:00:00Z');

let dir: string;
let db: Database;
let con: DuckDBConnection;

const vehicle = (vehicle_id: number, sensors: Row) => ({
  account: ACCOUNT,
  vehicle_id,
  registration: `V${vehicle_id}`,
  description: 'Ops',
  fuel_canbus_consumed: false,
  fuel_canbus_level: false,
  fuel_analog_level: false,
  electric_battery: false,
  electric_charging: false,
  synced_at: NOW,
  ...sensors,
});
const led = (stream: string, vehicle_id: number, from: string, to: string) =>
  ledgerRow(ACCOUNT, stream, String(vehicle_id), T(from), T(to), NOW);
const fill = (vehicle_id: number, at: string, amount_l: number) => ({
  account: ACCOUNT,
  vehicle_id,
  fill_time: T(at),
  amount_l,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-recon-'));
  db = await openDatabase(join(dir, 'fleet.duckdb'));
  con = await db.connect();
  await appendRows(con, 'accounts', [
    { account: ACCOUNT, base_url: 'http://sim', timezone: ZONE, updated_at: NOW },
  ]);
  await appendRows(con, 'vehicles', [
    // 1: fuel counter (and a level sensor, so its fills are pulled); 2: level sensor only;
    // 3: no fuel sensor at all: no fuel stream, no fills, no row
    vehicle(1, { fuel_canbus_consumed: true, fuel_canbus_level: true }),
    vehicle(2, { fuel_analog_level: true }),
    vehicle(3, {}),
    // 4: level sensor only, its fills synced the whole of May but its level only 1–10 May
    vehicle(4, { fuel_analog_level: true }),
  ]);
  // Nothing synced in April. May: vehicle 1's counter the whole month, its fills only 1–15 May
  // (the window ends at the start of the 16th); vehicle 2's level and fills the whole month.
  await appendRows(con, 'ledger', [
    led('fuel_consumed', 1, '2026-05-01', '2026-06-01'),
    led('fuel_fills', 1, '2026-05-01', '2026-05-16'),
    led('fuel_level', 2, '2026-05-01', '2026-06-01'),
    led('fuel_fills', 2, '2026-05-01', '2026-06-01'),
    led('fuel_level', 4, '2026-05-01', '2026-05-11'),
    led('fuel_fills', 4, '2026-05-01', '2026-06-01'),
  ]);
  await appendRows(con, 'fuel_consumed', [
    {
      account: ACCOUNT,
      vehicle_id: 1,
      window_start: T('2026-05-01'),
      window_end: T('2026-06-01'),
      counter_start_l: 1000,
      counter_end_l: 1100,
      fuel_consumed_l: 100,
    },
  ]);
  await appendRows(con, 'fuel_level', [
    {
      account: ACCOUNT,
      vehicle_id: 2,
      window_start: T('2026-05-01'),
      window_end: T('2026-06-01'),
      estimated_used_l: 45,
    },
    {
      account: ACCOUNT,
      vehicle_id: 4,
      window_start: T('2026-05-01'),
      window_end: T('2026-05-11'),
      estimated_used_l: 18,
    },
  ]);
  await appendRows(con, 'fuel_fills', [
    fill(1, '2026-05-03T08:00:00Z', 40),
    fill(1, '2026-05-10T08:00:00Z', 35),
    fill(2, '2026-05-20T08:00:00Z', 50),
    fill(4, '2026-05-05T08:00:00Z', 20),
  ]);
});
afterAll(() => {
  con?.closeSync();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(raw: Record<string, string>) {
  const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
  // rows written by hand here: the facts and coverage the sync keeps at commit, computed first
  await rebuildFacts(con, scope.account, scope.zone);
  const def = requireReport('fuel_reconciliation');
  return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
}

describe('fuel_reconciliation', () => {
  it('filled vs used per vehicle-month, with the coverage of fills and fuel stream together', async () => {
    const rows = await run({ from: '2026-04-01', to: '2026-05-31' });
    expect(
      rows.map((r) => [
        r.vehicle_id,
        r.period,
        r.filled_l,
        r.fills,
        r.used_l,
        r.source,
        r.difference_l,
        r.coverage,
        r.covered_share,
      ]),
    ).toEqual([
      // April was never synced: every figure blank (not 0), not_synced, no day of 30 covered
      [1, '2026-04', null, null, null, null, null, 'not_synced', 0],
      // May: 40 + 35 = 75 L filled in 2 fills, 1100 − 1000 = 100 L used: −25; fills settled on
      // 15 of May's 31 days (the counter on all 31): 15 / 31 = 0.4839, partial
      [1, '2026-05', 75, 2, 100, 'counter', -25, 'partial', 0.4839],
      [2, '2026-04', null, null, null, null, null, 'not_synced', 0],
      // 50 L filled, 45 L estimated used: +5; fills and level settled every day of May
      [2, '2026-05', 50, 1, 45, 'level_estimate', 5, 'complete', 1],
      [4, '2026-04', null, null, null, null, null, 'not_synced', 0],
      // fills settled every day of May, the level only 1–10 May: a day counts when both are,
      // 10 / 31 = 0.3226, partial; 20 L filled, 18 L estimated used: +2
      [4, '2026-05', 20, 1, 18, 'level_estimate', 2, 'partial', 0.3226],
    ]);
  });
});
