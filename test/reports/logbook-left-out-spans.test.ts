/**
 * logbook_years takes a vehicle's day off whole when every trip of the day overlaps an odometer
 * window left out (its fast path: the day's facts less themselves), and reads the trips one by one
 * only on a day a window's edge cuts (queries/models/logbook.sql, `fd` and `xp`). Which path a day
 * takes rests on one count: the trips of logbook_left_out_spans (by vehicle, start and end, `n`
 * trips each: session 17, `edges`) added up over the day, against the trips the day facts count.
 * A wrong `n` too low sends the day down the slow path with the same totals, so no report test
 * notices; this one does. (The path itself is a branch inside one statement: no counter of it
 * exists, and DuckDB's plan of the macro changes with its optimizer, so the count it rests on is
 * what is pinned.)
 *
 * Hand-worked on the report fixture's vehicle 3, which has no odometer windows of its own: on 20
 * April (Sydney, UTC+10) three trips with the same start and end inside a reset window, and one
 * across that window's end and into a tracker-change window; on 21 April one trip inside a reset
 * window and one after it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareModelConnection } from '../../src/store/models.ts';
import { appendRows } from '../../src/store/write.ts';
import {
  ACCOUNT,
  T,
  ZONE,
  openFixture,
  refreshFixtureFacts,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let con: DuckDBConnection;

const window = (
  s: string,
  e: string,
  flags: { odometer_reset?: boolean; terminal_has_changed?: boolean },
) => ({
  account: ACCOUNT,
  vehicle_id: 3,
  window_start: T(s),
  window_end: T(e),
  distance_m: 1_000,
  odometer_reset: false,
  terminal_has_changed: false,
  ...flags,
});
const trip = (trip_id: string, s: string, e: string) => ({
  account: ACCOUNT,
  trip_id,
  vehicle_id: 3,
  registration: '=cmd()',
  start_time: T(s),
  end_time: T(e),
  trip_distance_m: 5_000,
  start_odometer_m: 2_000_000,
  end_odometer_m: 2_005_000,
});

beforeAll(async () => {
  fx = await openFixture();
  con = fx.con;
  await appendRows(con, 'odometer_windows', [
    window('2026-04-20T00:00:00Z', '2026-04-20T02:00:00Z', { odometer_reset: true }),
    window('2026-04-20T02:00:00Z', '2026-04-20T04:00:00Z', { terminal_has_changed: true }),
    window('2026-04-21T03:00:00Z', '2026-04-21T04:00:00Z', { odometer_reset: true }),
  ]);
  await appendRows(con, 'trips', [
    // 20 April: every trip left out
    trip('a1', '2026-04-20T00:30:00Z', '2026-04-20T01:00:00Z'),
    trip('a2', '2026-04-20T00:30:00Z', '2026-04-20T01:00:00Z'),
    trip('a3', '2026-04-20T00:30:00Z', '2026-04-20T01:00:00Z'),
    trip('c', '2026-04-20T01:30:00Z', '2026-04-20T02:30:00Z'), // over both windows: counted once
    // 21 April: one of two
    trip('d', '2026-04-21T03:00:00Z', '2026-04-21T03:30:00Z'),
    trip('e', '2026-04-21T05:00:00Z', '2026-04-21T05:30:00Z'),
  ]);
  await refreshFixtureFacts(con);
  await prepareModelConnection(con);
});
afterAll(() => fx?.close());

const rows = async (sql: string) =>
  (await con.runAndReadAll(sql, [ACCOUNT, ZONE])).getRowObjectsJson() as Record<string, unknown>[];

describe('logbook_left_out_spans, the count logbook_years picks its path by', () => {
  it('counts the trips alike in vehicle, start and end, and a trip over two windows once', async () => {
    expect(
      await rows(`SELECT start_time::VARCHAR AS start_time, end_time::VARCHAR AS end_time, n::INTEGER AS n
                  FROM logbook_left_out_spans($1, $2, DATE '2026-04-20', DATE '2026-04-21')
                  WHERE vehicle_id = 3 ORDER BY start_time`),
    ).toEqual([
      { start_time: '2026-04-20 00:30:00+00', end_time: '2026-04-20 01:00:00+00', n: 3 },
      { start_time: '2026-04-20 01:30:00+00', end_time: '2026-04-20 02:30:00+00', n: 1 },
      { start_time: '2026-04-21 03:00:00+00', end_time: '2026-04-21 03:30:00+00', n: 1 },
    ]);
  });

  it("adds up to the day facts' trips on a day all of whose trips are left out (taken off whole), and not on a day a window cuts", async () => {
    // the condition logbook_years' `fd` splits the days by: trips = left_out (whole), trips > left_out (trip by trip)
    expect(
      await rows(`SELECT f.day::VARCHAR AS day, f.trips::INTEGER AS trips, s.left_out::INTEGER AS left_out
                  FROM trip_day_facts_in($1, $2, DATE '2026-04-20', DATE '2026-04-21') AS f
                  JOIN (SELECT vehicle_id, timezone($2, start_time)::DATE AS day, sum(n) AS left_out
                        FROM logbook_left_out_spans($1, $2, DATE '2026-04-20', DATE '2026-04-21') GROUP BY ALL) AS s
                    ON s.vehicle_id = f.vehicle_id AND s.day = f.day
                  WHERE f.vehicle_id = 3 ORDER BY f.day`),
    ).toEqual([
      { day: '2026-04-20', trips: 4, left_out: 4 },
      { day: '2026-04-21', trips: 2, left_out: 1 },
    ]);
  });
});
