/**
 * Benchmark 3: rows per second into DuckDB through the production write path. Trips of a
 * generated fleet (rows shaped as the trips stream writes them) and odometer windows per vehicle
 * and local day, built in memory first; only the write calls are timed:
 * - `upsertRows(trips)` inside one transaction (what the trips stream does per window),
 * - `appendRows(trips)` into an empty table,
 * - `appendRows(odometer_windows)` (what the odometer stream does).
 * Each into a fresh DuckDB file. Also the 1M+ rows are written in 500-row pages, one transaction
 * each, as the sync receives them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFleet } from '../src/simulator/generate.ts';
import type { Fleet } from '../src/simulator/model.ts';
import { inTransaction, openDatabase } from '../src/store/db.ts';
import { appendRows, upsertRows, type Row } from '../src/store/write.ts';
import { dayWindows } from '../src/sync/windows.ts';
import { fig, peakRssMb, round, say, type Figure } from './lib.ts';
import { END_DAY, SEED } from './world.ts';

export interface IngestResult {
  tripRows: number;
  odometerRows: number;
  upsertTripsMs: number;
  appendTripsMs: number;
  appendOdometerMs: number;
  pagedUpsertTripsMs: number;
  pagedRows: number;
  /** References in the same run: the same trips appended to a copy of the table without its key,
   * and the same number of rows inserted by SQL alone (no JS) into the keyed table. */
  appendUnkeyedMs?: number;
  sqlKeyedMs?: number;
  peakRssMb: number;
}

/**
 * The rows the ingest bench writes: trips of `fleet` as the trips stream writes them (the first
 * `minTrips`) and its odometer windows per vehicle and local day (`grid`, dayWindows of the fleet).
 */
export function ingestRows(
  fleet: Pick<Fleet, 'vehicles' | 'tripsOf' | 'odometerAt'>,
  minTrips: number,
  grid: readonly { startMs: number; endMs: number }[],
): { trips: Row[]; odometer: Row[] } {
  const trips: Row[] = [];
  for (const v of fleet.vehicles)
    for (const t of fleet.tripsOf(v.vehicle_id))
      trips.push({
        account: 'bench',
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
      });
  trips.length = Math.min(trips.length, Math.max(minTrips, 1));
  const odometer: Row[] = [];
  for (const v of fleet.vehicles) {
    let prev = fleet.odometerAt(v.vehicle_id, grid[0]!.startMs);
    for (const w of grid) {
      const end = fleet.odometerAt(v.vehicle_id, w.endMs - 1);
      odometer.push({
        account: 'bench',
        vehicle_id: v.vehicle_id,
        window_start: w.startMs,
        window_end: w.endMs,
        start_odometer_m: prev,
        end_odometer_m: end,
        distance_m: end - prev,
        current_odometer_m: end,
        last_event_at: w.endMs - 60_000,
        odometer_reset: false,
        terminal_has_changed: false,
      });
      prev = end;
    }
  }
  return { trips, odometer };
}

/** Vehicles enough for `minTrips` over `days` (~4.8 trips per vehicle-day, the generator's density; a few more). */
export const ingestVehicles = (minTrips: number, days: number) =>
  Math.max(1, Math.ceil(minTrips / (days * 4.3)));

/**
 * What the bench's rows and write calls take from a checkout: this one's by default;
 * bench/experiments/ingest-ab.ts passes another checkout's (its generator, windows and write path).
 */
export interface IngestCheckout {
  generateFleet: typeof generateFleet;
  dayWindows: typeof dayWindows;
  SEED: number;
  END_DAY: string;
  inTransaction: typeof inTransaction;
  upsertRows: typeof upsertRows;
  appendRows: typeof appendRows;
}
const THIS_CHECKOUT: IngestCheckout = {
  generateFleet,
  dayWindows,
  SEED,
  END_DAY,
  inTransaction,
  upsertRows,
  appendRows,
};

/** The rows the bench writes: those of a two-year fleet with `minTrips` trips at least (ingestRows). */
export function benchRows(minTrips: number, c: IngestCheckout = THIS_CHECKOUT) {
  const days = 730;
  const fleet = c.generateFleet({
    seed: c.SEED,
    vehicles: ingestVehicles(minTrips, days),
    days,
    endDay: c.END_DAY,
  });
  return ingestRows(fleet, minTrips, c.dayWindows(fleet.startMs, fleet.endMs, fleet.timezone));
}

/**
 * The bench's timed write calls, each in one transaction: the trips upserted (what the trips
 * stream does per window), the trips appended into an empty table, the odometer windows appended.
 */
export function benchWrites(rows: { trips: Row[]; odometer: Row[] }, c: IngestCheckout = THIS_CHECKOUT) {
  return {
    upsert: (con: DuckDBConnection) =>
      c.inTransaction(con, () => c.upsertRows(con, 'trips', ['account', 'trip_id'], rows.trips)),
    append: (con: DuckDBConnection) => c.inTransaction(con, () => c.appendRows(con, 'trips', rows.trips)),
    odometer: (con: DuckDBConnection) =>
      c.inTransaction(con, () => c.appendRows(con, 'odometer_windows', rows.odometer)),
  };
}

export async function ingestChild(a: { minTrips: number; pagedRows: number }): Promise<IngestResult> {
  const { trips, odometer } = benchRows(a.minTrips);
  const writes = benchWrites({ trips, odometer });
  say(`ingest: ${trips.length} trips, ${odometer.length} odometer windows in memory`);

  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-ingest-'));
  const fresh = async <T>(
    name: string,
    fn: (con: Awaited<ReturnType<Awaited<ReturnType<typeof openDatabase>>['connect']>>) => Promise<T>,
  ) => {
    const db = await openDatabase(join(dir, `${name}.duckdb`));
    const con = await db.connect();
    try {
      const t0 = performance.now();
      await fn(con);
      return performance.now() - t0;
    } finally {
      con.closeSync();
      db.close();
    }
  };
  try {
    const upsertTripsMs = await fresh('upsert', writes.upsert);
    const appendTripsMs = await fresh('append', writes.append);
    const appendOdometerMs = await fresh('odometer', writes.odometer);
    const paged = trips.slice(0, a.pagedRows);
    const pagedUpsertTripsMs = await fresh('paged', async (con) => {
      for (let i = 0; i < paged.length; i += 500) {
        const page = paged.slice(i, i + 500);
        await inTransaction(con, () => upsertRows(con, 'trips', ['account', 'trip_id'], page));
      }
    });
    const appendUnkeyedMs = await fresh('unkeyed', async (con) => {
      await con.run('CREATE TABLE trips_unkeyed AS SELECT * FROM trips LIMIT 0');
      await inTransaction(con, () => appendRows(con, 'trips_unkeyed', trips));
    });
    const sqlKeyedMs = await fresh('sql', (con) =>
      con.run(
        `INSERT INTO trips (account, trip_id, vehicle_id, registration, start_time, end_time, trip_distance_m,
             start_odometer_m, end_odometer_m, driver_id, start_location, end_location)
         SELECT 'bench', 'trip-' || i, i % 500, 'AB-' || (i % 500), make_timestamptz(i * 60000000),
           make_timestamptz(i * 60000000 + 1800000000), i % 10000, i, i + 100, 'd' || (i % 90), 'x', 'y'
         FROM range(${trips.length}) r(i)`,
      ),
    );
    return {
      appendUnkeyedMs,
      sqlKeyedMs,
      tripRows: trips.length,
      odometerRows: odometer.length,
      upsertTripsMs,
      appendTripsMs,
      appendOdometerMs,
      pagedUpsertTripsMs,
      pagedRows: paged.length,
      peakRssMb: peakRssMb(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const ingestRate = (r: IngestResult) =>
  (r.tripRows + r.odometerRows) / ((r.upsertTripsMs + r.appendOdometerMs) / 1000);

export function ingestFigures(r: IngestResult): Figure[] {
  const B = '3 ingest';
  const rate = (rows: number, ms: number) => rows / (ms / 1000);
  const headline = ingestRate(r);
  return [
    fig(B, "trips + odometer via the sync's calls", headline, 'rows/s', {
      target: '≥ 500,000',
      pass: headline >= 500_000,
      note: `${r.tripRows + r.odometerRows} rows in ${round((r.upsertTripsMs + r.appendOdometerMs) / 1000, 2)} s`,
    }),
    fig(B, 'upsertRows(trips), one transaction', rate(r.tripRows, r.upsertTripsMs), 'rows/s', {
      note: `${r.tripRows} rows in ${round(r.upsertTripsMs / 1000, 2)} s`,
    }),
    fig(B, 'appendRows(trips)', rate(r.tripRows, r.appendTripsMs), 'rows/s', {
      note: `${round(r.appendTripsMs / 1000, 2)} s`,
    }),
    fig(B, 'appendRows(odometer_windows)', rate(r.odometerRows, r.appendOdometerMs), 'rows/s', {
      note: `${r.odometerRows} rows in ${round(r.appendOdometerMs / 1000, 2)} s`,
    }),
    fig(B, 'upsertRows(trips), 500-row pages, txn each', rate(r.pagedRows, r.pagedUpsertTripsMs), 'rows/s', {
      note: `${r.pagedRows} rows`,
    }),
    ...(r.appendUnkeyedMs && r.sqlKeyedMs
      ? [
          fig(
            B,
            'reference: appendRows(trips) without the primary key',
            rate(r.tripRows, r.appendUnkeyedMs),
            'rows/s',
            {
              note: 'what the key index costs',
            },
          ),
          fig(
            B,
            'reference: SQL-only INSERT … FROM range() into keyed trips',
            rate(r.tripRows, r.sqlKeyedMs),
            'rows/s',
            {
              note: "DuckDB's own rate for this table, no JS",
            },
          ),
        ]
      : []),
  ];
}
