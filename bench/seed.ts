/**
 * A large database straight from `generateFleet` through the production write path
 * (`appendRows`, `upsertRows`), no HTTP: vehicles, trips, odometer / fuel / level windows per
 * vehicle and local month (flagged where the fleet has a reset or tracker change), fills, toll
 * visits, geofences, bookings as of `now` with their history, carpool vehicles and drivers, a
 * ledger row for every window and one finished run. Rows go in chunks of 100k per transaction.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { carpoolDriverSetupStatus, carpoolVehicleSetupStatus } from '../src/simulator/generate.ts';
import type { Fleet, SimVehicle } from '../src/simulator/model.ts';
import { inTransaction } from '../src/store/db.ts';
import { rebuildFacts } from '../src/store/facts.ts';
import { appendRows, upsertRows, type Row } from '../src/store/write.ts';
import { dayWindows, monthWindows, type Window } from '../src/sync/windows.ts';

export const ACCOUNT = 'bench';
const CHUNK = 100_000;

export interface SeedCounts {
  [table: string]: number;
}

async function put(con: DuckDBConnection, table: string, rows: Iterable<Row>, counts: SeedCounts) {
  let chunk: Row[] = [];
  const flush = async () => {
    if (!chunk.length) return;
    const c = chunk;
    chunk = [];
    await inTransaction(con, () => appendRows(con, table, c));
    counts[table] = (counts[table] ?? 0) + c.length;
  };
  for (const r of rows) {
    chunk.push(r);
    if (chunk.length >= CHUNK) await flush();
  }
  await flush();
}

function* ledgerRows(
  stream: string,
  scope: string,
  windows: Window[],
  nowMs: number,
  flagged?: (w: Window) => string | null,
) {
  for (const w of windows) {
    const reason = flagged?.(w) ?? null;
    yield {
      account: ACCOUNT,
      stream,
      scope,
      window_start: w.startMs,
      window_end: w.endMs,
      status: reason ? 'flagged' : 'done',
      rows: 1,
      requests: 1,
      fetched_at: nowMs,
      run_id: 'bench-seed',
      reason,
      last_event_at: w.endMs - 3_600_000,
    };
  }
}

/**
 * The seed's tables a sync stores in time order (trips: windows oldest first, each sorted,
 * STORED_ORDER in src/store/write.ts; toll and site visits: fleet-wide day windows, oldest first),
 * where the seed wrote them vehicle after vehicle over the whole history: each with the order a
 * range's scan relies on and its primary key.
 */
const TIME_ORDERED = [
  { table: 'trips', order: ['account', 'start_time', 'trip_id'], key: ['account', 'trip_id'] },
  ...['geofence_visits', 'site_geofence_visits'].map((table) => ({
    table,
    order: ['account', 'enter_time', 'vehicle_id', 'geofence_id'],
    key: ['account', 'vehicle_id', 'geofence_id', 'enter_time'],
  })),
];

/**
 * Puts the seed's trips and visits in time order, as a sync stores them (TIME_ORDERED): the trips
 * export then streams a range as stored (issue 29) and a range's scan skips the row groups outside
 * it. Each table out of order is written again sorted, its key and NOT NULL columns added back (the
 * rows and the schema as before). A no-op on a seed already in order; returns the tables it
 * rewrote. Bench only: it needs ~1 GB of DuckDB's memory at 1.75 M trips (a sort into a new table,
 * then the key's index built once).
 */
export async function seedInTimeOrder(con: DuckDBConnection): Promise<string[]> {
  const rewritten: string[] = [];
  for (const { table, order, key } of TIME_ORDERED) {
    const cols = order.join(', ');
    const lags = order.map((c) => `lag(${c}) OVER () AS p_${c}`).join(', ');
    const check = await con.runAndReadAll(
      `SELECT count(*) FILTER (WHERE (${order.map((c) => `p_${c}`).join(', ')}) > (${cols})) AS n
       FROM (SELECT ${cols}, ${lags} FROM ${table})
       WHERE p_${order[0]} IS NOT NULL`,
    );
    if (Number(check.getRowsJS()[0]![0]) === 0) continue;
    const notNull = (
      await con.runAndReadAll(
        `SELECT column_name FROM duckdb_columns() WHERE table_name = '${table}' AND schema_name = 'main' AND NOT is_nullable`,
      )
    )
      .getRowsJS()
      .map((r) => String(r[0]));
    const limit = (await con.runAndReadAll(`SELECT current_setting('memory_limit')`)).getRowsJS()[0]![0];
    await con.run(`SET memory_limit = '2GB'`);
    try {
      await inTransaction(con, async () => {
        await con.run(`CREATE TABLE ${table}_in_time_order AS SELECT * FROM ${table} ORDER BY ${cols}`);
        await con.run(`DROP TABLE ${table}`);
        await con.run(`ALTER TABLE ${table}_in_time_order RENAME TO ${table}`);
        for (const c of notNull) await con.run(`ALTER TABLE ${table} ALTER COLUMN ${c} SET NOT NULL`);
        await con.run(`ALTER TABLE ${table} ADD PRIMARY KEY (${key.join(', ')})`);
      });
      await con.run('CHECKPOINT');
    } finally {
      await con.run(`SET memory_limit = '${String(limit)}'`);
    }
    rewritten.push(table);
  }
  return rewritten;
}

/** The fleet-wide rows: account, geofences, bookings and their history, carpool, the fleet-wide streams' ledger, the run. */
export async function seedFleetWide(
  con: DuckDBConnection,
  fleet: Fleet,
  nowMs: number,
  counts: SeedCounts = {},
): Promise<SeedCounts> {
  const months = monthWindows(fleet.startMs, fleet.endMs, fleet.timezone);
  const days = dayWindows(fleet.startMs, fleet.endMs, fleet.timezone);
  await put(
    con,
    'accounts',
    [{ account: ACCOUNT, base_url: 'http://bench', timezone: fleet.timezone, updated_at: nowMs }],
    counts,
  );
  await put(
    con,
    'geofences',
    fleet.geofences.map((g) => ({ account: ACCOUNT, ...g, synced_at: nowMs })),
    counts,
  );
  const views = fleet.bookings.filter((b) => b.created_ms <= nowMs).map((b) => fleet.bookingAt(b, nowMs));
  await put(
    con,
    'carpool_bookings',
    views.map((b) => ({
      account: ACCOUNT,
      booking_id: b.booking.booking_id,
      vehicle_id: b.booking.vehicle_id,
      registration: b.booking.registration,
      driver_id: b.booking.driver_id,
      department: b.booking.department,
      booking_status: b.status,
      is_approved: b.is_approved,
      approved_by: b.approved_by,
      declined_by: b.declined_by,
      start_time: b.booking.start_ms,
      end_time: b.booking.end_ms,
      picked_up_at: b.picked_up_ms,
      returned_at: b.returned_ms,
      created_at: b.booking.created_ms,
      updated_at: b.updated_ms,
      first_seen_at: nowMs,
      last_seen_at: nowMs,
    })),
    counts,
  );
  await inTransaction(con, async () => {
    counts.carpool_booking_history = await upsertRows(
      con,
      'carpool_booking_history',
      ['account', 'booking_id', 'seen_at'],
      views.map((b) => ({
        account: ACCOUNT,
        booking_id: b.booking.booking_id,
        booking_status: b.status,
        is_approved: b.is_approved,
        seen_at: nowMs,
        run_id: 'bench-seed',
      })),
    );
  });
  await put(
    con,
    'carpool_vehicles',
    fleet.carpoolVehicles.map((v) => ({
      account: ACCOUNT,
      ...v,
      setup_status: carpoolVehicleSetupStatus(v),
      synced_at: nowMs,
    })),
    counts,
  );
  await put(
    con,
    'carpool_drivers',
    fleet.drivers
      .filter((d) => !d.deactivated)
      .map((d) => ({
        account: ACCOUNT,
        driver_id: d.driver_id,
        first_name: d.first_name,
        last_name: d.last_name,
        department: d.department,
        can_book_carpool: d.can_book_carpool,
        allow_system_auto_booking: d.allow_system_auto_booking,
        allow_specific_vehicle_booking: d.allow_specific_vehicle_booking,
        license_type_ids: JSON.stringify(d.license_type_ids),
        special_licenses: JSON.stringify(d.special_licenses),
        setup_status: carpoolDriverSetupStatus(d, fleet.carpoolSettings),
        synced_at: nowMs,
      })),
    counts,
  );
  await put(
    con,
    'ledger',
    (function* () {
      yield* ledgerRows('trips', '*', months, nowMs);
      yield* ledgerRows('visits', '*', days, nowMs);
      yield* ledgerRows('bookings', '*', months, nowMs);
    })(),
    counts,
  );
  await put(
    con,
    'runs',
    [
      {
        run_id: 'bench-seed',
        account: ACCOUNT,
        started_at: nowMs - 600_000,
        ended_at: nowMs - 1000,
        outcome: 'ok',
        trigger: 'cli',
        range_from: fleet.startMs,
        range_to: fleet.endMs - 1,
        streams: 'all',
        requests: 0,
        retries: 0,
        http_429: '{}',
        rows_by_stream: '{}',
        windows_by_stream: '{}',
        errors: '[]',
        notes: 'seeded by bench/seed.ts',
      },
    ],
    counts,
  );
  return counts;
}

/** The rows of vehicles `vs` (of `fleet`): the vehicles, their trips, windows, fills, toll visits and ledger. */
export async function seedVehicles(
  con: DuckDBConnection,
  fleet: Fleet,
  vs: readonly SimVehicle[],
  nowMs: number,
  counts: SeedCounts = {},
): Promise<SeedCounts> {
  const months = monthWindows(fleet.startMs, fleet.endMs, fleet.timezone);
  const toll = new Set(fleet.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));
  const gName = new Map(fleet.geofences.map((g) => [g.geofence_id, g.name]));
  const ids = new Set(vs.map((v) => v.vehicle_id));
  const events = fleet.odometerEvents.filter((e) => ids.has(e.vehicle_id));
  const eventsOf = (vid: number, w: Window) =>
    events.filter((e) => e.vehicle_id === vid && e.at_ms >= w.startMs && e.at_ms < w.endMs);
  await put(
    con,
    'vehicles',
    vs.map((v) => ({
      account: ACCOUNT,
      vehicle_id: v.vehicle_id,
      registration: v.registration,
      vehicle_name: v.vehicle_name,
      description: v.department,
      manufacturer: v.manufacturer,
      model: v.model,
      model_year: v.model_year,
      chassis_number: v.chassis_number,
      terminal_serial: v.terminals[v.terminals.length - 1]?.serial ?? null,
      ...v.sensors,
      synced_at: nowMs,
    })),
    counts,
  );
  await put(
    con,
    'trips',
    (function* () {
      for (const v of vs)
        for (const t of fleet.tripsOf(v.vehicle_id))
          yield {
            account: ACCOUNT,
            trip_id: t.trip_id,
            vehicle_id: t.vehicle_id,
            registration: t.registration,
            start_time: t.start_ms,
            end_time: t.end_ms,
            trip_distance_m: Math.round(t.distance_m),
            start_odometer_m: Math.round(t.start_odometer_m),
            end_odometer_m: Math.round(t.end_odometer_m),
            driver_id: t.driver_id,
            start_location: t.start_location,
            end_location: t.end_location,
          };
    })(),
    counts,
  );
  await put(
    con,
    'odometer_windows',
    (function* () {
      for (const v of vs)
        for (const w of months) {
          const ev = eventsOf(v.vehicle_id, w);
          const s = fleet.odometerAt(v.vehicle_id, w.startMs);
          const e = fleet.odometerAt(v.vehicle_id, w.endMs - 1);
          yield {
            account: ACCOUNT,
            vehicle_id: v.vehicle_id,
            window_start: w.startMs,
            window_end: w.endMs,
            start_odometer_m: s,
            end_odometer_m: e,
            distance_m: e - s,
            current_odometer_m: e,
            last_event_at: w.endMs - 3_600_000,
            odometer_reset: ev.some((x) => x.kind === 'odometer_reset'),
            terminal_has_changed: ev.some((x) => x.kind === 'terminal_has_changed'),
          };
        }
    })(),
    counts,
  );
  const can = vs.filter((v) => v.sensors.fuel_canbus_consumed);
  const level = vs.filter(
    (v) => !v.sensors.fuel_canbus_consumed && (v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level),
  );
  await put(
    con,
    'fuel_consumed',
    can.flatMap((v) =>
      months.map((w) => {
        const s = fleet.fuelCounterAt(v.vehicle_id, w.startMs);
        const e = fleet.fuelCounterAt(v.vehicle_id, w.endMs - 1);
        return {
          account: ACCOUNT,
          vehicle_id: v.vehicle_id,
          window_start: w.startMs,
          window_end: w.endMs,
          counter_start_l: s,
          counter_end_l: e,
          fuel_consumed_l: s === null || e === null ? null : e - s,
        };
      }),
    ),
    counts,
  );
  await put(
    con,
    'fuel_level',
    level.flatMap((v) =>
      months.map((w) => ({
        account: ACCOUNT,
        vehicle_id: v.vehicle_id,
        window_start: w.startMs,
        window_end: w.endMs,
        start_l: fleet.fuelLevelAt(v.vehicle_id, w.startMs),
        start_at: w.startMs,
        start_accurate: true,
        end_l: fleet.fuelLevelAt(v.vehicle_id, w.endMs - 1),
        end_at: w.endMs - 1,
        end_accurate: true,
        estimated_used_l: null,
        calibrated: true,
      })),
    ),
    counts,
  );
  await put(
    con,
    'fuel_fills',
    level.flatMap((v) =>
      fleet.fillsOf(v.vehicle_id).map((f) => ({
        account: ACCOUNT,
        vehicle_id: v.vehicle_id,
        fill_time: f.at_ms,
        amount_l: f.litres,
        odometer_m: f.odometer_m,
        location: f.location,
        accurate: true,
      })),
    ),
    counts,
  );
  await put(
    con,
    'geofence_visits',
    (function* () {
      for (const v of vs)
        for (const x of fleet.visitsOf(v.vehicle_id))
          if (toll.has(x.geofence_id))
            yield {
              account: ACCOUNT,
              vehicle_id: x.vehicle_id,
              geofence_id: x.geofence_id,
              enter_time: x.enter_ms,
              exit_time: x.exit_ms,
              registration: x.registration,
              geofence_name: gName.get(x.geofence_id) ?? null,
              is_toll: true,
              duration_s: (x.exit_ms - x.enter_ms) / 1000,
            };
    })(),
    counts,
  );
  await put(
    con,
    'ledger',
    (function* () {
      for (const v of vs) {
        const id = String(v.vehicle_id);
        yield* ledgerRows('odometer', id, months, nowMs, (w) => {
          const ev = eventsOf(v.vehicle_id, w);
          return ev.length ? ev.map((e) => e.kind).join(', ') : null;
        });
        if (v.sensors.fuel_canbus_consumed) yield* ledgerRows('fuel_consumed', id, months, nowMs);
        else if (level.includes(v)) {
          yield* ledgerRows('fuel_level', id, months, nowMs);
          yield* ledgerRows('fuel_fills', id, months, nowMs);
        }
      }
    })(),
    counts,
  );
  return counts;
}

/** The daily facts (issue 29) the sync keeps at commit, computed once for the seeded rows. */
export async function seedFacts(
  con: DuckDBConnection,
  zone: string,
  counts: SeedCounts,
): Promise<SeedCounts> {
  counts.daily_facts = await inTransaction(con, () => rebuildFacts(con, ACCOUNT, zone));
  return counts;
}

/** The whole fleet into an empty database. */
export async function seedDatabase(con: DuckDBConnection, fleet: Fleet, nowMs: number): Promise<SeedCounts> {
  const counts = await seedFleetWide(con, fleet, nowMs);
  await seedVehicles(con, fleet, fleet.vehicles, nowMs, counts);
  return seedFacts(con, fleet.timezone, counts);
}
