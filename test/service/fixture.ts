/**
 * A hand-filled database for the service_due tests: an Australia/Sydney account in winter
 * (AEST, +10:00, no clock change from April to October), six vehicles with month-long odometer
 * windows as the sync leaves them (June whole, July 1–17 settled, July 17 on still open), and a
 * plan file loaded through the real loader. Local midnight of day D is D−1 14:00Z. The right
 * answers are worked out by hand in due.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { loadServicePlanFile } from '../../src/service/store.ts';
import { ledgerRow } from '../helpers/ledger-row.ts';

export const ZONE = 'Australia/Sydney';
export const ACCOUNT = 'svc';
const T = (iso: string) => Date.parse(iso);
/** Local midnight starting a local day (winter: +10:00). */
export const midnight = (day: string) => T(`${day}T00:00:00+10:00`);
export const JUN_1 = midnight('2026-06-01');
export const JUN_15 = midnight('2026-06-15');
export const JUN_16 = midnight('2026-06-16');
export const JUL_1 = midnight('2026-07-01');
export const JUL_10 = midnight('2026-07-10');
export const JUL_17 = midnight('2026-07-17');
export const AUG_1 = midnight('2026-08-01');
/** The tests' clock: local 2026-07-20 12:00 (today 20 July). */
export const NOW = T('2026-07-20T02:00:00Z');

const sensors = {
  fuel_canbus_consumed: true,
  fuel_canbus_level: false,
  fuel_analog_level: false,
  electric_battery: false,
  electric_charging: false,
};
export const VEHICLES = { KM: 1, MONTHS: 2, BOTH: 3, RESET: 4, NEW: 5, NOSERVICE: 6 } as const;
const vehicles: Row[] = Object.entries(VEHICLES).map(([reg, id]) => ({
  account: ACCOUNT,
  vehicle_id: id,
  registration: reg,
  description: 'Ops',
  synced_at: NOW,
  ...sensors,
}));

/** A window of `km` whose odometer reads `fromKm` at its start and `fromKm + km` at its end. */
const odo = (
  vehicle_id: number,
  s: number,
  e: number,
  km: number,
  fromKm: number,
  flags: Partial<Row> = {},
): Row => ({
  account: ACCOUNT,
  vehicle_id,
  window_start: s,
  window_end: e,
  distance_m: km * 1000,
  start_odometer_m: fromKm * 1000,
  end_odometer_m: (fromKm + km) * 1000,
  odometer_reset: false,
  terminal_has_changed: false,
  ...flags,
});
/**
 * June whole, July 1–17 settled, July 17 to the month's end still open (incomplete; its end
 * reading is the one when it was fetched, NOW); the odometer reads `jun1Km` on 1 June.
 */
const months = (id: number, jun1Km: number, june: number, july: number, open: number) => [
  odo(id, JUN_1, JUL_1, june, jun1Km),
  odo(id, JUL_1, JUL_17, july, jun1Km + june),
  odo(id, JUL_17, AUG_1, open, jun1Km + june + july),
];
/**
 * The readings (km): KM 50,000 on 1 June (its service), 53,000 on 1 July, 54,600 on 17 July,
 * 54,900 at NOW; BOTH 78,200 on 1 June (80,000 at its service on 10 June: 9 days of 200 km),
 * 84,200, 96,200, 101,200; RESET 10,000 on 1 June, 11,400 on 15 June, its new odometer 12 km
 * after the reset's day, 1,512, 3,112, 3,312; NEW 0 on 10 July, 700, 1,000.
 */
const odometer: Row[] = [
  ...months(VEHICLES.KM, 50000, 3000, 1600, 300),
  ...months(VEHICLES.MONTHS, 32000, 3000, 1600, 300),
  ...months(VEHICLES.BOTH, 78200, 6000, 12000, 5000),
  odo(VEHICLES.RESET, JUN_1, JUN_15, 1400, 10000),
  // the reset's day: the API's distance across it is meaningless (the reading jumped)
  odo(VEHICLES.RESET, JUN_15, JUN_16, 999_999, 11400, {
    odometer_reset: true,
    current_odometer_m: 12_000,
    end_odometer_m: 12_000,
  }),
  odo(VEHICLES.RESET, JUN_16, JUL_1, 1500, 12),
  odo(VEHICLES.RESET, JUL_1, JUL_17, 1600, 1512),
  odo(VEHICLES.RESET, JUL_17, AUG_1, 200, 3112),
  odo(VEHICLES.NEW, JUL_10, JUL_17, 700, 0),
  odo(VEHICLES.NEW, JUL_17, AUG_1, 300, 700),
  ...months(VEHICLES.NOSERVICE, 40000, 3000, 1600, 300),
];
const ledger: Row[] = odometer.map((o) =>
  ledgerRow(
    ACCOUNT,
    'odometer',
    String(o.vehicle_id),
    o.window_start as number,
    o.window_end as number,
    NOW,
    {
      status: o.odometer_reset ? 'flagged' : o.window_start === JUL_17 ? 'incomplete' : 'done',
      reason: o.odometer_reset ? 'odometer_reset' : null,
    },
  ),
);

export const PLAN = {
  warning: { km: 1000, days: 30 },
  intervals: [
    { every_km: 20000, every_months: 12 },
    { vehicle: 'KM', every_km: 15000 },
    { vehicle: VEHICLES.MONTHS, every_months: 6 },
  ],
  services: [
    { vehicle: 'KM', date: '2026-06-01', odometer_km: 50000 },
    { vehicle: 'MONTHS', date: '2026-01-25', odometer_km: 20000 },
    { vehicle: 'BOTH', date: '2026-06-10', odometer_km: 80000 },
    { vehicle: 'RESET', date: '2026-06-01', odometer_km: 10000 },
    { vehicle: 'NEW', date: '2026-07-10', odometer_km: 0 },
  ],
};

export interface ServiceFixture {
  dir: string;
  db: Database;
  con: DuckDBConnection;
  planPath: string;
  close(): void;
}

/** A fresh migrated file in a temp dir with the vehicles, odometer and ledger; the plan loaded. */
export async function openServiceFixture(): Promise<ServiceFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-service-'));
  const db = await openDatabase(join(dir, 'fleet.duckdb'));
  const con = await db.connect();
  await appendRows(con, 'accounts', [
    { account: ACCOUNT, base_url: 'http://sim', timezone: ZONE, updated_at: NOW },
  ]);
  await appendRows(con, 'vehicles', vehicles);
  await appendRows(con, 'odometer_windows', odometer);
  await appendRows(con, 'ledger', ledger);
  const planPath = join(dir, 'service-plan.json');
  writeFileSync(planPath, JSON.stringify(PLAN, null, 2));
  await loadServicePlanFile(con, ACCOUNT, { servicePlanFile: planPath }, ZONE, NOW);
  return {
    dir,
    db,
    con,
    planPath,
    close: () => {
      con.closeSync();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `service done` of BOTH on 18 July at 101,300 km (the CLI tests), and the line it prints. */
export const DONE_BOTH = [
  'service',
  'done',
  '--vehicle',
  'BOTH',
  '--date',
  '2026-07-18',
  '--odometer',
  '101300',
];
export const DONE_BOTH_LINE = 'recorded: vehicle BOTH (3) serviced on 2026-07-18 at 101300 km';
