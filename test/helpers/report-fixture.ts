/**
 * A hand-filled DuckDB file for report tests: an Australia/Sydney account across the April 2026
 * end of daylight saving (2026-04-05 03:00 AEDT → 02:00 AEST) and the March/April month end.
 * Local midnight of 1 April is 2026-03-31T13:00Z (+11:00); of 11 April 2026-04-10T14:00Z and of
 * 1 May 2026-04-30T14:00Z (+10:00). Right answers are worked out by hand in the tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type JsonRow, type ReportScope } from '../../src/reports/run.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { rebuildFacts } from '../../src/store/facts.ts';
import { appendRows, type Row } from '../../src/store/write.ts';
import { ledgerRow } from './ledger-row.ts';

export const ZONE = 'Australia/Sydney';
export const ACCOUNT = 'acme';
export const T = (iso: string) => Date.parse(iso);

export const MAR_START = T('2026-02-28T13:00:00Z');
export const APR_START = T('2026-03-31T13:00:00Z');
export const APR_11 = T('2026-04-10T14:00:00Z');
export const APR_12 = T('2026-04-11T14:00:00Z');
export const MAY_START = T('2026-04-30T14:00:00Z');
/** The clock of the tests: after the April data, in May. */
export const NOW = T('2026-05-02T00:00:00Z');

const sensors = (can: boolean, level: boolean) => ({
  fuel_canbus_consumed: can,
  fuel_canbus_level: false,
  fuel_analog_level: level,
  electric_battery: false,
  electric_charging: false,
});

const vehicles: Row[] = [
  { vehicle_id: 1, registration: 'ab 123 gp', description: 'Sales', ...sensors(true, false) },
  { vehicle_id: 2, registration: 'cd 456 gp', description: 'Ops', ...sensors(true, false) },
  { vehicle_id: 3, registration: '=cmd()', description: '@x', ...sensors(false, true) },
].map((v) => ({ account: ACCOUNT, synced_at: NOW, ...v }));

const odo = (
  vehicle_id: number,
  s: number,
  e: number,
  distance_m: number | null,
  flags: Partial<Row> = {},
) => ({
  account: ACCOUNT,
  vehicle_id,
  window_start: s,
  window_end: e,
  distance_m,
  odometer_reset: false,
  terminal_has_changed: false,
  ...flags,
});

const odometer: Row[] = [
  odo(1, MAR_START, APR_START, 1_000_000),
  odo(1, APR_START, APR_11, 500_000),
  odo(1, APR_11, APR_12, 999_999_000, { odometer_reset: true }),
  odo(1, APR_12, MAY_START, 250_000),
  odo(2, MAR_START, APR_START, 42_000),
  odo(2, APR_START, APR_11, 0),
  odo(2, APR_11, APR_12, 7_000, { terminal_has_changed: true }),
  odo(2, APR_12, MAY_START, null),
];

const led = (
  scope: string,
  s: number,
  e: number,
  status: string,
  stream = 'odometer',
  reason: string | null = null,
) => ledgerRow(ACCOUNT, stream, scope, s, e, NOW, { status, reason, run_id: 'run-2', rows: 0 });

const ledger: Row[] = [
  led('1', MAR_START, APR_START, 'done'),
  led('1', APR_START, APR_11, 'done'),
  led('1', APR_11, APR_12, 'flagged', 'odometer', 'odometer_reset'),
  led('1', APR_12, MAY_START, 'done'),
  led('2', MAR_START, APR_START, 'done'),
  led('2', APR_START, APR_11, 'done'),
  led('2', APR_11, APR_12, 'flagged', 'odometer', 'terminal_has_changed'),
  led('2', APR_12, MAY_START, 'incomplete', 'odometer', 'last event well before the window end'),
];

const fuelC = (vehicle_id: number, s: number, e: number, a: number | null, b: number | null) => ({
  account: ACCOUNT,
  vehicle_id,
  window_start: s,
  window_end: e,
  counter_start_l: a,
  counter_end_l: b,
});

const fuelConsumed: Row[] = [
  fuelC(1, MAR_START, APR_START, 100, 150),
  fuelC(1, APR_START, APR_11, 150, 170),
  fuelC(1, APR_11, APR_12, 170, 5),
  fuelC(1, APR_12, MAY_START, 5, 35),
  fuelC(2, APR_START, MAY_START, 80, 80),
];

const fuelLevel: Row[] = [
  { account: ACCOUNT, vehicle_id: 3, window_start: APR_START, window_end: APR_11, estimated_used_l: 12.5 },
  { account: ACCOUNT, vehicle_id: 3, window_start: APR_11, window_end: MAY_START, estimated_used_l: 7.5 },
];

const geofences: Row[] = [
  { account: ACCOUNT, geofence_id: 'g-toll', name: 'M5 toll', is_toll: true, synced_at: NOW },
  { account: ACCOUNT, geofence_id: 'g-depot', name: 'Depot', is_toll: false, synced_at: NOW },
];

const visit = (vehicle_id: number, geofence_id: string, enter: number, exit: number) => ({
  account: ACCOUNT,
  vehicle_id,
  geofence_id,
  enter_time: enter,
  exit_time: exit,
  registration: vehicles.find((v) => v.vehicle_id === vehicle_id)!.registration,
  duration_s: (exit - enter) / 1000,
});

const visits: Row[] = [
  visit(1, 'g-toll', T('2026-03-31T13:30:00Z'), T('2026-03-31T13:31:00Z')), // 1 Apr 00:30 local, 31 Mar UTC
  visit(1, 'g-toll', T('2026-03-31T12:30:00Z'), T('2026-03-31T12:31:30Z')), // 31 Mar 23:30 local
  visit(2, 'g-toll', T('2026-04-04T15:30:00Z'), T('2026-04-04T15:32:00Z')), // 5 Apr 02:30 AEDT (+11)
  visit(1, 'g-depot', T('2026-04-02T01:00:00Z'), T('2026-04-02T03:00:00Z')),
];

const trip = (trip_id: string, vehicle_id: number, s: number, e: number, extra: Partial<Row> = {}) => ({
  account: ACCOUNT,
  trip_id,
  vehicle_id,
  registration: vehicles.find((v) => v.vehicle_id === vehicle_id)!.registration,
  start_time: s,
  end_time: e,
  trip_distance_m: 12_345,
  start_odometer_m: 1_000_000,
  end_odometer_m: 1_012_345,
  ...extra,
});

const trips: Row[] = [
  trip('t1', 1, T('2026-04-01T00:00:00Z'), T('2026-04-01T01:00:00Z'), {
    start_location: '=HYPERLINK("http://x")',
    end_location: '-12.5',
    driver_id: '@x',
  }),
  trip('t2', 3, T('2026-04-02T00:00:00Z'), T('2026-04-02T01:00:00Z'), {
    start_odometer_m: -12_500,
    end_odometer_m: null,
    start_location: '+SUM(A1)',
    end_location: '\tTabbed',
  }),
];

const booking = (
  booking_id: number,
  status: string,
  start: number,
  end: number,
  returned: number | null,
  extra: Partial<Row> = {},
) => ({
  account: ACCOUNT,
  booking_id,
  vehicle_id: 1,
  registration: 'ab 123 gp',
  driver_id: `d${booking_id}`,
  booking_status: `BOOKING_STATUS_${status}`,
  is_approved: true,
  start_time: start,
  end_time: end,
  picked_up_at: returned === null ? null : start,
  returned_at: returned,
  created_at: start - 86_400_000,
  updated_at: returned ?? end,
  first_seen_at: start - 86_400_000,
  last_seen_at: NOW,
  ...extra,
});

const H = 3_600_000;
const D10 = T('2026-04-10T00:00:00Z');
const bookings: Row[] = [
  // RETURNED although returned_at is after end_time: NOT late (the status decides).
  booking(101, 'RETURNED', D10, D10 + 2 * H, D10 + 3 * H),
  // RETURNED_LATE although returned_at is before end_time: late.
  booking(102, 'RETURNED_LATE', D10 + 4 * H, D10 + 6 * H, D10 + 5 * H),
  booking(103, 'ACTIVE_LATE', D10 + 24 * H, D10 + 26 * H, null, { picked_up_at: D10 + 24 * H }),
  // Approved, never picked up, cancelled 40 minutes after the start: a no-show.
  booking(104, 'CANCELLED', D10 + 48 * H, D10 + 50 * H, null, { updated_at: D10 + 48 * H + 40 * 60_000 }),
  booking(105, 'DECLINED', D10 + 72 * H, D10 + 74 * H, null, { is_approved: false }),
];

const history: Row[] = [
  { booking_id: 101, booking_status: 'BOOKING_STATUS_REQUESTED', is_approved: false, seen_at: D10 - 24 * H },
  { booking_id: 101, booking_status: 'BOOKING_STATUS_APPROVED', is_approved: true, seen_at: D10 - 22 * H },
  // 102: created 24 h before its start (D10 - 20 h), seen REQUESTED, then APPROVED 5 h later.
  { booking_id: 102, booking_status: 'BOOKING_STATUS_REQUESTED', is_approved: false, seen_at: D10 - 19 * H },
  { booking_id: 102, booking_status: 'BOOKING_STATUS_APPROVED', is_approved: true, seen_at: D10 - 15 * H },
  {
    booking_id: 105,
    booking_status: 'BOOKING_STATUS_DECLINED',
    is_approved: false,
    seen_at: D10 + 72 * H - 20 * H,
  },
].map((h) => ({ account: ACCOUNT, run_id: 'run-1', ...h }));

const carpoolVehicles: Row[] = [
  {
    vehicle_id: 1,
    registration: 'ab 123 gp',
    category: 'sedan',
    department: 'Sales',
    default_location: 'HQ',
    license_class: 'B',
    setup_status: 'READY',
  },
  {
    vehicle_id: 2,
    registration: 'cd 456 gp',
    category: null,
    department: 'Ops',
    default_location: 'HQ',
    license_class: null,
    setup_status: 'SETUP_INCOMPLETE',
  },
].map((v) => ({ account: ACCOUNT, synced_at: NOW, ...v }));

const drivers: Row[] = [
  {
    driver_id: 'd1',
    first_name: 'Ann',
    last_name: 'Lee',
    department: 'Sales',
    can_book_carpool: true,
    allow_system_auto_booking: false,
    allow_specific_vehicle_booking: false,
    setup_status: 'SETUP_INCOMPLETE',
  },
  {
    driver_id: 'd2',
    first_name: 'Bo',
    last_name: 'Ng',
    department: 'Sales',
    can_book_carpool: false,
    allow_system_auto_booking: true,
    allow_specific_vehicle_booking: true,
    setup_status: 'SETUP_INCOMPLETE',
  },
  {
    driver_id: 'd3',
    first_name: 'Cy',
    last_name: 'Oz',
    department: 'Sales',
    can_book_carpool: true,
    allow_system_auto_booking: true,
    allow_specific_vehicle_booking: false,
    setup_status: 'ACTIVE_CARPOOL',
  },
].map((d) => ({ account: ACCOUNT, synced_at: NOW, license_type_ids: '[1]', ...d }));

const runs: Row[] = [
  {
    run_id: 'run-1',
    account: ACCOUNT,
    started_at: T('2026-04-30T20:00:00Z'),
    ended_at: T('2026-04-30T20:01:00Z'),
    outcome: 'ok',
    trigger: 'cli',
  },
  {
    run_id: 'run-2',
    account: ACCOUNT,
    started_at: T('2026-05-01T20:00:00Z'),
    ended_at: T('2026-05-01T20:02:00Z'),
    outcome: 'partial',
    trigger: 'schedule',
  },
].map((r) => ({ requests: 10, retries: 0, ...r }));

export async function fillFixture(con: DuckDBConnection): Promise<void> {
  await appendRows(con, 'accounts', [
    { account: ACCOUNT, base_url: 'http://sim', timezone: ZONE, updated_at: NOW },
  ]);
  await appendRows(con, 'vehicles', vehicles);
  await appendRows(con, 'odometer_windows', odometer);
  await appendRows(con, 'ledger', ledger);
  await appendRows(con, 'fuel_consumed', fuelConsumed);
  await appendRows(con, 'fuel_level', fuelLevel);
  await appendRows(con, 'geofences', geofences);
  await appendRows(con, 'geofence_visits', visits);
  await appendRows(con, 'trips', trips);
  await appendRows(con, 'carpool_bookings', bookings);
  await appendRows(con, 'carpool_booking_history', history);
  await appendRows(con, 'carpool_vehicles', carpoolVehicles);
  await appendRows(con, 'carpool_drivers', drivers);
  await appendRows(con, 'runs', runs);
  await refreshFixtureFacts(con);
}

/**
 * The daily facts and day's coverage computed again from the rows as they are now (the sync keeps
 * them at commit; a test that writes rows by hand calls this before reading a report).
 */
export async function refreshFixtureFacts(con: DuckDBConnection): Promise<void> {
  await rebuildFacts(con, ACCOUNT, ZONE);
}

export interface FixtureDb {
  dir: string;
  db: Database;
  con: DuckDBConnection;
  close(): void;
}

/** A fresh DuckDB file in a temp dir, migrated and filled. */
/**
 * Marks the fleet-wide trips and toll visits synced (done) for March and April, as a sync that
 * stored the fixture's trips and visits would have left them. The fixture itself leaves them
 * unsynced, so figures resting on them (trips, toll passages) are blank unless a test calls this.
 */
export async function markFleetStreamsSynced(con: DuckDBConnection): Promise<void> {
  await appendRows(con, 'ledger', [
    led('*', MAR_START, MAY_START, 'done', 'trips'),
    led('*', MAR_START, MAY_START, 'done', 'visits'),
  ]);
  await refreshFixtureFacts(con);
}

/**
 * Settles March for every stream a mileage or fuel figure uses (the fixture settles only vehicles
 * 1 and 2's odometer there): vehicle 3's odometer, vehicles 1 and 2's fuel counter, vehicle 3's
 * fuel level. Then March is complete for the month-end pack and subscriptions; April stays not.
 */
export async function settleMarch(con: DuckDBConnection): Promise<void> {
  await appendRows(con, 'ledger', [
    led('3', MAR_START, APR_START, 'done', 'odometer'),
    led('1', MAR_START, APR_START, 'done', 'fuel_consumed'),
    led('2', MAR_START, APR_START, 'done', 'fuel_consumed'),
    led('3', MAR_START, APR_START, 'done', 'fuel_level'),
  ]);
  await refreshFixtureFacts(con);
}

export async function openFixture(): Promise<FixtureDb> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-reports-'));
  const db = await openDatabase(join(dir, 'fleet.duckdb'));
  const con = await db.connect();
  await fillFixture(con);
  return {
    dir,
    db,
    con,
    close: () => {
      con.closeSync();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fixture's account as the reports see it, at NOW. */
export const FIXTURE_SCOPE: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };

/** A report's rows on `con` for a query as the API takes it (from, to, month, vehicle, …). */
export async function reportRows(
  con: DuckDBConnection,
  name: string,
  raw: Record<string, string> = {},
  scope: ReportScope = FIXTURE_SCOPE,
): Promise<JsonRow[]> {
  const def = requireReport(name);
  return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
}

/** A small RFC 4180 parser for the tests (quotes, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
