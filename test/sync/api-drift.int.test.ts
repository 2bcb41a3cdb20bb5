/**
 * The account that surprises (issue 23, items 2 and 5), against the simulator over HTTP through
 * the real CLI: a booking in BOOKING_STATUS_ON_HOLD (not in the spec's list), a carpool driver
 * with a new setup_status, extra fields on bookings, trips and vehicles. The runs exit 0, the
 * booking is kept with `is_late` blank (and the late counts over it blank), its window is stored
 * (pulled again until the booking settles, never failed), `status` and the data-quality report
 * list the values, and each is alerted once — not again on the second run. The extra fields land
 * in `extra_fields`; the trips' wire fields match the simulator's truth; ISO-T timestamps give the
 * same stored rows as the space style.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimBooking, SimDriver, SimTrip } from '../../src/simulator/model.ts';
import { tripTraits } from '../../src/simulator/gen/trip-traits.ts';
import { engineType, vehicleClassOf } from '../../src/simulator/wire.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { localDate, localDayBounds } from '../../src/time.ts';
import { syncAccount } from '../../src/wiring.ts';
import { runMain, type CliOutput } from '../helpers/cli.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, harnessCliEnv, queryDb, reportOn, startHarness, type Harness } from '../helpers/synced.ts';

const DAY = 86_400_000;
const ON_HOLD = 'BOOKING_STATUS_ON_HOLD';
const NEW_SETUP = 'PENDING_LICENCE_CHECK';
const LATE = new Set(['BOOKING_STATUS_ACTIVE_LATE', 'BOOKING_STATUS_RETURNED_LATE']);
const FINAL = new Set([
  'BOOKING_STATUS_RETURNED',
  'BOOKING_STATUS_RETURNED_LATE',
  'BOOKING_STATUS_CANCELLED',
]);

let h: Harness;
let hook: WebhookReceiver;
let env: Record<string, string>;
let db: Database;
let held: SimBooking;
let driver: SimDriver;
const runs: CliOutput[] = [];
let status: CliOutput;
let afterFirst: string[];

/** `fleetsync sync` of the fleet's history, the streams these cases read. */
const cliSync = () =>
  runMain(
    env,
    'sync',
    '--from',
    h.firstDay,
    '--to',
    h.lastDay,
    '--streams',
    'vehicles,trips,odometer,carpool,bookings',
  );
const drift = (texts: string[]) => texts.filter((t) => t.includes('this version does not know'));
const texts = () => hook.posts.map((p) => p.body.text);

const report = (name: string, raw: Record<string, string> = { from: h.firstDay, to: h.lastDay }) =>
  reportOn(db, name, raw, { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() });

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 14, days: 40 } });
  hook = await startWebhookReceiver();
  // A booking the truth has returned late, settled days before the end of history: without the
  // surprise its is_late would be true, so a blank shows nothing was guessed.
  held = h.fleet.bookings.find(
    (b) =>
      b.end_ms < h.fleet.endMs - 5 * DAY &&
      h.fleet.bookingAt(b, h.now()).status === 'BOOKING_STATUS_RETURNED_LATE',
  )!;
  driver = h.fleet.drivers.find((d) => d.can_book_carpool)!;
  h.sim.setFaults({
    surprises: {
      changes: [
        {
          kind: 'booking',
          where: { booking_id: held.booking_id },
          set: { booking_status: ON_HOLD, fuel_card_id: 'FC-0042' },
        },
        { kind: 'carpool_driver', where: { driver_id: driver.driver_id }, set: { setup_status: NEW_SETUP } },
        { kind: 'trip', set: { co2_grams: 1234 } },
        { kind: 'vehicle', set: { fuel_card: { number: 'FC-9' } } },
      ],
    },
  });
  env = harnessCliEnv(h, { FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hook` });
  runs.push(await cliSync());
  afterFirst = texts();
  status = await runMain(env, 'status');
  runs.push(await cliSync());
  db = await openDatabase(env.FLEETSYNC_DB!);
}, 240_000);
afterAll(async () => {
  db?.close();
  await hook?.close();
  await h?.close();
});

describe('an enum value this version does not know', () => {
  it('the runs are ok (exit 0), twice', () => {
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
  });

  it('keeps the booking as sent, flagged, with its extra field; is_late is blank, not false', async () => {
    const [row] = await queryDb(
      db,
      'SELECT booking_status, booking_status_known, extra_fields FROM carpool_bookings WHERE account = $1 AND booking_id = $2',
      [ACCOUNT, held.booking_id],
    );
    expect(row).toEqual({
      booking_status: ON_HOLD,
      booking_status_known: false,
      extra_fields: '{"fuel_card_id":"FC-0042"}',
    });
    const rows = await report('carpool', { from: h.firstDay, to: h.lastDay });
    const mine = rows.find((r) => Number(r.booking_id) === held.booking_id)!;
    expect(mine.booking_status).toBe(ON_HOLD);
    expect(mine.is_late).toBeNull();
    // every other settled booking: lateness as the truth's status says
    const settled = h.fleet.bookings.filter(
      (b) => b.booking_id !== held.booking_id && FINAL.has(h.fleet.bookingAt(b, h.now()).status),
    );
    const byId = new Map(rows.map((r) => [Number(r.booking_id), r.is_late]));
    const checked = settled.filter((b) => byId.has(b.booking_id));
    expect(checked.length).toBeGreaterThan(5);
    for (const b of checked)
      expect(byId.get(b.booking_id), String(b.booking_id)).toBe(
        LATE.has(h.fleet.bookingAt(b, h.now()).status),
      );
  });

  it('a count that depends on it is blank; the same counts without it are numbers', async () => {
    const rows = await report('carpool_departments');
    const dept = h.fleet.vehicles.find((v) => v.vehicle_id === held.vehicle_id)!.department ?? '(none)';
    const mine = rows.find((r) => r.department === dept)!;
    expect(Number(mine.bookings)).toBeGreaterThan(1);
    expect([mine.late_returns, mine.checked_out, mine.late_return_rate, mine.declined]).toEqual([
      null,
      null,
      null,
      null,
    ]);
    const others = rows.filter((r) => r.department !== dept && Number(r.bookings) > 0);
    expect(others.length).toBeGreaterThan(0);
    for (const r of others) expect(typeof r.late_returns, String(r.department)).toBe('number');
    // a range of days without the held booking: its department's counts are known
    const after = new Date(held.end_ms + 2 * DAY).toISOString().slice(0, 10);
    const later = (await report('carpool_departments', { from: after, to: h.lastDay })).find(
      (r) => r.department === dept && Number(r.bookings) > 0,
    );
    expect(typeof later?.late_returns).toBe('number');
  });

  it("the driver's month with it: late returns blank; every other driver-month with bookings: a number", async () => {
    const rows = await report('drivers');
    const month = localDate(held.start_ms, h.fleet.timezone).slice(0, 7);
    const withBookings = rows.filter((r) => Number(r.bookings) > 0);
    const mine = withBookings.filter(
      (r) => r.driver_id === held.driver_id && String(r.period).startsWith(month),
    );
    expect(mine).toHaveLength(1);
    expect(mine[0]!.late_returns).toBeNull();
    const others = withBookings.filter((r) => r !== mine[0]);
    expect(others.length).toBeGreaterThan(3);
    for (const r of others) expect(typeof r.late_returns, `${r.driver_id} ${r.period}`).toBe('number');
  });

  it('the fleet KPIs and the trend over it: late returns blank; a range without it: numbers', async () => {
    const [k] = await report('kpis');
    expect(Number(k!.bookings)).toBeGreaterThan(0);
    expect([k!.late_returns, k!.checked_out, k!.late_return_rate]).toEqual([null, null, null]);
    const trend = await report('trend', { from: h.firstDay, to: h.lastDay, grain: 'month' });
    const month = localDate(held.start_ms, h.fleet.timezone).slice(0, 7);
    for (const r of trend.filter((x) => Number(x.bookings) > 0))
      expect(r.late_returns, String(r.period)).toEqual(
        String(r.period).startsWith(month) ? null : expect.any(Number),
      );
    const after = new Date(held.end_ms + 2 * DAY).toISOString().slice(0, 10);
    const [later] = await report('kpis', { from: after, to: h.lastDay });
    expect(typeof later!.late_returns).toBe('number');
    expect(typeof later!.checked_out).toBe('number');
  });

  it('its window is stored, not failed: pulled again until the booking settles, with the reason', async () => {
    const ledger = await queryDb(
      db,
      `SELECT status, reason FROM ledger WHERE account = $1 AND stream = 'bookings'
       AND window_start <= to_timestamp($2 / 1000) AND window_end > to_timestamp($2 / 1000)`,
      [ACCOUNT, held.start_ms],
    );
    expect(ledger).toEqual([{ status: 'incomplete', reason: expect.stringContaining(ON_HOLD) }]);
    const failed = await queryDb(
      db,
      `SELECT count(*)::INTEGER AS n FROM ledger WHERE account = $1 AND status = 'failed'`,
      [ACCOUNT],
    );
    expect(failed).toEqual([{ n: 0 }]);
  });

  it('a carpool driver with a new setup_status: the snapshot is ok, the value kept as sent', async () => {
    const [row] = await queryDb(
      db,
      'SELECT setup_status, setup_status_known FROM carpool_drivers WHERE account = $1 AND driver_id = $2',
      [ACCOUNT, driver.driver_id],
    );
    expect(row).toEqual({ setup_status: NEW_SETUP, setup_status_known: false });
    const others = await queryDb(
      db,
      'SELECT count(*)::INTEGER AS n FROM carpool_drivers WHERE account = $1 AND setup_status_known IS NOT TRUE',
      [ACCOUNT],
    );
    expect(others).toEqual([{ n: 1 }]);
  });

  it('is listed by the data-quality report and `status` (exit 0), and alerted once, not on the second run', async () => {
    expect(await report('unknown_values')).toEqual([
      {
        record: 'booking',
        field: 'booking_status',
        value: ON_HOLD,
        records: 1,
        example_id: String(held.booking_id),
      },
      {
        record: 'carpool driver',
        field: 'setup_status',
        value: NEW_SETUP,
        records: 1,
        example_id: driver.driver_id,
      },
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      `account ${ACCOUNT}: 1 booking in a status this version does not know: ${ON_HOLD}`,
    );
    expect(status.stdout).toContain(
      `1 carpool driver with a setup status this version does not know: ${NEW_SETUP}`,
    );
    expect(drift(afterFirst)).toEqual([
      expect.stringContaining(`1 booking in a status this version does not know: ${ON_HOLD}`),
      expect.stringContaining(
        `1 carpool driver with a setup status this version does not know: ${NEW_SETUP}`,
      ),
    ]);
    expect(drift(texts())).toHaveLength(2);
  });
});

describe("the wire's fields are stored", () => {
  const truthTrips = (): SimTrip[] => {
    const t0 = localDayBounds(h.firstDay, h.fleet.timezone).startMs;
    const t1 = localDayBounds(h.lastDay, h.fleet.timezone).endMs;
    return h.fleet.vehicles
      .flatMap((v) => h.fleet.tripsOf(v.vehicle_id))
      .filter((t) => t.start_ms >= t0 && t.start_ms < t1);
  };

  it("every trip, private ones too, with the simulator's type, counts, speeds and places", async () => {
    const rows = await queryDb(db, 'SELECT * FROM trips WHERE account = $1', [ACCOUNT]);
    const truth = truthTrips();
    expect(rows.length).toBe(truth.length);
    const stored = new Map(rows.map((r) => [String(r.trip_id), r]));
    const types = { Business: 0, Private: 0, None: 0 };
    for (const t of truth) {
      const r = stored.get(t.trip_id)!;
      const x = tripTraits(t);
      types[x.trip_type]++;
      const priv = x.is_private;
      expect(
        {
          trip_type: r.trip_type,
          trip_type_known: r.trip_type_known,
          is_private: r.is_private,
          trip_title: r.trip_title,
          trip_extra_notes: r.trip_extra_notes,
          harsh_braking_events: r.harsh_braking_events,
          harsh_acceleration_events: r.harsh_acceleration_events,
          harsh_cornering_events: r.harsh_cornering_events,
          road_speeding_events: r.road_speeding_events,
          road_speeding_duration_seconds: r.road_speeding_duration_seconds,
          thresholds_speeding_events: r.thresholds_speeding_events,
          thresholds_speeding_duration_seconds: r.thresholds_speeding_duration_seconds,
          max_speed: r.max_speed,
          start_geofence_name: r.start_geofence_name,
          end_geofence_name: r.end_geofence_name,
          start_location: r.start_location,
          trip_distance_m: r.trip_distance_m,
        },
        t.trip_id,
      ).toEqual({
        trip_type: x.trip_type,
        trip_type_known: true,
        is_private: priv,
        trip_title: priv ? null : x.trip_title,
        trip_extra_notes: priv ? null : x.trip_extra_notes,
        harsh_braking_events: x.harsh_braking_events,
        harsh_acceleration_events: x.harsh_acceleration_events,
        harsh_cornering_events: x.harsh_cornering_events,
        road_speeding_events: x.road_speeding_events,
        road_speeding_duration_seconds: x.road_speeding_duration_seconds,
        thresholds_speeding_events: x.thresholds_speeding_events,
        thresholds_speeding_duration_seconds: x.thresholds_speeding_duration_seconds,
        max_speed: x.max_speed,
        // a private trip comes with a reduced data set: no places (unknown, not "nowhere")
        start_geofence_name: priv ? null : x.start_geofence_name,
        end_geofence_name: priv ? null : x.end_geofence_name,
        start_location: priv ? null : t.start_location,
        trip_distance_m: Math.round(t.distance_m),
      });
    }
    // the fleet has every kind, so each branch above was met
    expect(types.Business).toBeGreaterThan(types.Private);
    expect(types.Private).toBeGreaterThan(0);
    expect(types.None).toBeGreaterThan(0);
    expect(truth.some((t) => tripTraits(t).harsh_braking_events > 0)).toBe(true);
  });

  it('the keys no field maps are kept per trip and vehicle, and only those', async () => {
    const [t] = await queryDb(db, 'SELECT extra_fields FROM trips WHERE account = $1 LIMIT 1', [ACCOUNT]);
    const extra = JSON.parse(String(t!.extra_fields)) as Record<string, unknown>;
    expect(extra.co2_grams).toBe(1234);
    expect(Object.keys(extra).sort()).toEqual([
      'chassis_number',
      'co2_grams',
      'driver_name',
      'driver_surname',
      'end_coordinates',
      'idle_time',
      'idle_time_seconds',
      'start_coordinates',
      'trip_duration',
      'trip_duration_seconds',
    ]);
    const vehicles = await queryDb(
      db,
      'SELECT vehicle_id, fuel_type, vehicle_class, extra_fields FROM vehicles WHERE account = $1',
      [ACCOUNT],
    );
    expect(vehicles.length).toBe(h.fleet.vehicles.length);
    for (const r of vehicles) {
      const v = h.fleet.vehicles.find((x) => x.vehicle_id === Number(r.vehicle_id))!;
      expect([r.fuel_type, r.vehicle_class]).toEqual([engineType(v), vehicleClassOf(v)]);
      expect(JSON.parse(String(r.extra_fields)).fuel_card).toEqual({ number: 'FC-9' });
    }
  });
});

describe('timestamps in both styles', () => {
  it('ISO-T timestamps give the same stored rows as the space style', async () => {
    // the last five days (12 before issue 26 item 6: two syncs into fresh files were 12 of the 46 s)
    const fromDay = new Date(h.fleet.endMs - 5 * DAY).toISOString().slice(0, 10);
    const req = {
      trigger: 'cli' as const,
      fromDay,
      toDay: h.lastDay,
      streams: ['trips', 'bookings', 'visits'],
    };
    const tables = {
      trips: 'SELECT * FROM trips ORDER BY trip_id',
      carpool_bookings:
        'SELECT * EXCLUDE (first_seen_at, last_seen_at) FROM carpool_bookings ORDER BY booking_id',
      geofence_visits: 'SELECT * FROM geofence_visits ORDER BY vehicle_id, geofence_id, enter_time',
    };
    const stored: Record<string, unknown[]>[] = [];
    for (const iso of [false, true]) {
      h.sim.setFaults(iso ? { surprises: { isoTimestamps: true } } : {});
      const other = await openDatabase(join(h.dir, `style-${iso}.duckdb`));
      try {
        const s = await syncAccount({ ...h.deps, db: other }, req);
        expect(s.outcome).toBe('ok');
        const out: Record<string, unknown[]> = {};
        for (const [t, sql] of Object.entries(tables)) out[t] = await queryDb(other, sql);
        stored.push(out);
      } finally {
        other.close();
      }
    }
    h.sim.setFaults({});
    const [space, iso] = stored;
    for (const t of Object.keys(tables)) expect(space![t]!.length, t).toBeGreaterThan(0);
    expect(iso).toEqual(space);
  }, 120_000);
});

describe('a database synced by an older version', () => {
  it('pulls its trips windows again once: the private trips and the wire fields arrive', async () => {
    const path = join(h.dir, 'older.duckdb');
    const fromDay = new Date(h.fleet.endMs - 20 * DAY).toISOString().slice(0, 10);
    const span = [
      new Date(localDayBounds(fromDay, h.fleet.timezone).startMs).toISOString(),
      new Date(localDayBounds(h.lastDay, h.fleet.timezone).endMs).toISOString(),
    ];
    const counts = async (d: Database) =>
      (
        (await queryDb(
          d,
          `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE is_private)::INTEGER AS p,
             count(*) FILTER (WHERE trip_type IS NULL OR harsh_braking_events IS NULL)::INTEGER AS bare
           FROM trips WHERE start_time >= $1::TIMESTAMPTZ AND start_time < $2::TIMESTAMPTZ`,
          span,
        )) as { n: number; p: number; bare: number }[]
      )[0]!;
    let older = await openDatabase(path);
    const req = { trigger: 'cli' as const, fromDay, toDay: h.lastDay, streams: ['trips'] };
    expect((await syncAccount({ ...h.deps, db: older }, req)).outcome).toBe('ok');
    const now = await counts(older);
    expect(now.p).toBeGreaterThan(0);
    // As an older fleetsync left it: no private trip, none of the wire's fields, 043 not applied.
    await queryDb(older, 'DELETE FROM trips WHERE is_private');
    await queryDb(
      older,
      'UPDATE trips SET trip_type = NULL, trip_type_known = NULL, is_private = NULL, harsh_braking_events = NULL',
    );
    await queryDb(older, `DELETE FROM schema_migrations WHERE name = '043_trips_pulled_again.sql'`);
    expect(await counts(older)).toEqual({ n: now.n - now.p, p: 0, bare: now.n - now.p });
    older.close();

    older = await openDatabase(path);
    try {
      const windows = await queryDb(older, `SELECT DISTINCT status FROM ledger WHERE stream = 'trips'`);
      expect(windows).toEqual([{ status: 'incomplete' }]);
      // an incremental run (no dates): from the first stored window to today
      expect(
        (await syncAccount({ ...h.deps, db: older }, { trigger: 'cli', streams: ['trips'] })).outcome,
      ).toBe('ok');
      expect(await counts(older)).toEqual(now);
    } finally {
      older.close();
    }
  }, 120_000);
});

describe('when the API moves on', () => {
  it('the booking reaches a known status: stored, late again, its window done, the alert recovered', async () => {
    db.close();
    h.sim.setFaults({});
    const before = texts().length;
    const run = await cliSync();
    expect(run.code, run.stderr).toBe(0);
    db = await openDatabase(env.FLEETSYNC_DB!);
    const [row] = await queryDb(
      db,
      'SELECT booking_status, booking_status_known FROM carpool_bookings WHERE account = $1 AND booking_id = $2',
      [ACCOUNT, held.booking_id],
    );
    expect(row).toEqual({ booking_status: 'BOOKING_STATUS_RETURNED_LATE', booking_status_known: true });
    const mine = (await report('carpool')).find((r) => Number(r.booking_id) === held.booking_id);
    expect(mine?.is_late).toBe(true);
    const ledger = await queryDb(
      db,
      `SELECT status FROM ledger WHERE account = $1 AND stream = 'bookings'
       AND window_start <= to_timestamp($2 / 1000) AND window_end > to_timestamp($2 / 1000)`,
      [ACCOUNT, held.start_ms],
    );
    expect(ledger).toEqual([{ status: 'done' }]);
    expect(await report('unknown_values')).toEqual([]);
    expect(texts().slice(before)).toEqual([
      expect.stringMatching(
        /^fleetsync: recovered: account test: no stored record carries booking_status BOOKING_STATUS_ON_HOLD/,
      ),
      expect.stringMatching(
        /^fleetsync: recovered: account test: no stored record carries setup_status PENDING_LICENCE_CHECK/,
      ),
    ]);
  }, 120_000);
});
