-- The daily facts (issue 29): per vehicle and local day, what the day- and month-grain reports add
-- up, computed here from the rules above and kept in the daily_facts table (queries/schema/088)
-- by the writer that commits the rows, in the same transaction (src/store/facts.ts). A window's
-- figures count on the local day it starts: summed by local month they are the monthly figures
-- exactly (every monthly rule takes a window into the month it starts).
--
-- daily_facts_of(acct, zone, stream_name, from_day, to_day): the facts of the local days
-- [from_day, to_day] from the raw rows, for one ledger stream (NULL: every stream), in the
-- table's column order after account:
--   odometer       windows, left_out (flagged), distance_m (the counted), last_window_end
--                  (odometer_windows_classified)
--   fuel_consumed, fuel_level   windows, left_out (excluded), used_l, last_window_end
--                  (fuel_windows_sourced: a level estimate the counter overrides is still kept
--                  here; vehicle_day_facts leaves it out, as fuel_windows_classified does)
--   trips          trips and trip_distance_m of the trips starting that day
--   visits         toll_passages entered that day (toll_passages), and their charges
--                  (toll_passage_charges, queries/models/prices.sql): toll_no_tariff the passages
--                  without a tariff, toll_charged the sum of the others' charges,
--                  toll_charged_rounded the same of each charge rounded to the cent
--   activity       driving_s, idle_s, first_ignition_on, last_ignition_off: the vehicle's row of
--                  GET /vehicles/activity for the day (vehicle_activity), as the API gave it
--   trips          also after_hours_s: the engine-on seconds of the day outside the working hours
--                  (trip_after_hours, queries/models/working_hours.sql), on every day a trip
--                  overlaps (a day a trip only runs into has a row without trips); computed again
--                  for the whole account when the working hours change (src/sync/run-log.ts)
-- (activity and the trips' after-hours are added by name: the columns the branches above leave
-- out are NULL there)
CREATE OR REPLACE TEMP MACRO daily_facts_of(acct, zone, stream_name, from_day, to_day) AS TABLE
  SELECT 'odometer' AS stream, o.vehicle_id, timezone(zone, o.window_start)::DATE AS day,
    count(*)::INTEGER AS windows, count(*) FILTER (WHERE NOT o.counted)::INTEGER AS left_out,
    sum(o.counted_m) AS distance_m, NULL::DOUBLE AS used_l, max(o.window_end) AS last_window_end,
    NULL::INTEGER AS trips, NULL::DOUBLE AS trip_distance_m, NULL::INTEGER AS toll_passages,
    NULL::INTEGER AS toll_no_tariff, NULL::DOUBLE AS toll_charged, NULL::DOUBLE AS toll_charged_rounded
  FROM odometer_windows_classified(acct, zone, from_day, to_day) AS o
  WHERE (stream_name IS NULL OR stream_name = 'odometer')
    AND o.window_start >= local_range_start(zone, from_day) AND o.window_start < local_range_end(zone, to_day)
  GROUP BY o.vehicle_id, day
  UNION ALL
  SELECT f.stream, f.vehicle_id, timezone(zone, f.window_start)::DATE AS day,
    count(*)::INTEGER, count(*) FILTER (WHERE f.excluded)::INTEGER,
    NULL::DOUBLE, sum(f.used_l), max(f.window_end),
    NULL::INTEGER, NULL::DOUBLE, NULL::INTEGER, NULL::INTEGER, NULL::DOUBLE, NULL::DOUBLE
  FROM fuel_windows_sourced(acct, zone, from_day, to_day) AS f
  WHERE (stream_name IS NULL OR stream_name = f.stream)
    AND f.window_start >= local_range_start(zone, from_day) AND f.window_start < local_range_end(zone, to_day)
  GROUP BY f.stream, f.vehicle_id, day
  UNION ALL
  SELECT 'visits', gv.vehicle_id, gv.local_day AS day,
    NULL::INTEGER, NULL::INTEGER, NULL::DOUBLE, NULL::DOUBLE, NULL::TIMESTAMPTZ,
    NULL::INTEGER, NULL::DOUBLE, count(*)::INTEGER,
    count(*) FILTER (WHERE gv.charge IS NULL)::INTEGER, sum(gv.charge), sum(round(gv.charge, 2))
  FROM toll_passage_charges(acct, zone, from_day, to_day) AS gv
  WHERE (stream_name IS NULL OR stream_name = 'visits')
  GROUP BY gv.vehicle_id, day
  UNION ALL BY NAME
  SELECT 'trips' AS stream, coalesce(s.vehicle_id, h.vehicle_id) AS vehicle_id, coalesce(s.day, h.day) AS day,
    s.trips, s.trip_distance_m, h.after_s AS after_hours_s
  FROM (
    SELECT t.vehicle_id, timezone(zone, t.start_time)::DATE AS day,
      count(*)::INTEGER AS trips, sum(t.trip_distance_m) AS trip_distance_m
    FROM trips AS t
    WHERE (stream_name IS NULL OR stream_name = 'trips') AND t.account = acct
      AND t.start_time >= local_range_start(zone, from_day) AND t.start_time < local_range_end(zone, to_day)
    GROUP BY t.vehicle_id, day
  ) AS s
  FULL JOIN (
    SELECT * FROM trip_after_hours(acct, zone, from_day, to_day)
    WHERE stream_name IS NULL OR stream_name = 'trips'
  ) AS h ON h.vehicle_id = s.vehicle_id AND h.day = s.day
  UNION ALL BY NAME
  SELECT 'activity' AS stream, a.vehicle_id, timezone(zone, a.day_start)::DATE AS day,
    a.driving_s, a.idle_s, a.first_ignition_on, a.last_ignition_off
  FROM vehicle_activity AS a
  WHERE (stream_name IS NULL OR stream_name = 'activity') AND a.account = acct
    AND a.day_start >= local_range_start(zone, from_day) AND a.day_start < local_range_end(zone, to_day);

-- daily_facts_span(acct, zone): the instants an account's fact-bearing rows span (odometer and
-- fuel windows, trips, toll passages, activity; first_start and last_end NULL without any): what a rebuild
-- computes.
CREATE OR REPLACE TEMP MACRO daily_facts_span(acct, zone) AS TABLE
  SELECT min(t0) AS first_start, max(t1) AS last_end FROM (
    SELECT min(window_start) AS t0, max(window_start) AS t1
    FROM odometer_windows_classified(acct, zone, DATE '1970-01-01', DATE '2999-12-31')
    UNION ALL SELECT min(window_start), max(window_start)
    FROM fuel_windows_sourced(acct, zone, DATE '1970-01-01', DATE '2999-12-31')
    -- a trip counts on its start's day, its after-hours on every day it runs into
    UNION ALL SELECT min(start_time), max(end_time) FROM trips WHERE account = acct
    UNION ALL SELECT min(enter_time), max(enter_time) FROM toll_passages(acct)
    -- activity on its day
    UNION ALL SELECT min(day_start), max(day_start) FROM vehicle_activity WHERE account = acct
  );

-- vehicle_day_facts(acct, zone, from_day, to_day): the stored facts of the local days
-- [from_day, to_day], one row per stream, vehicle and day, without the level estimates the
-- counter overrides (fuel_window_ignored). What the reports read. vehicle_day_facts_raw: the
-- same computed from the raw rows now (queries/sync/facts_use_raw.sql puts it in the reports' place, so a
-- test can compare every report over the facts with the same report over the raw tables).
CREATE OR REPLACE TEMP MACRO vehicle_day_facts(acct, zone, from_day, to_day) AS TABLE
  SELECT f.* EXCLUDE (account)
  FROM daily_facts AS f
  WHERE f.account = acct AND f.day >= from_day::DATE AND f.day <= to_day::DATE
    AND NOT fuel_window_ignored(acct, f.vehicle_id, f.stream);
CREATE OR REPLACE TEMP MACRO vehicle_day_facts_raw(acct, zone, from_day, to_day) AS TABLE
  SELECT f.*
  FROM daily_facts_of(acct, zone, NULL, from_day, to_day) AS f
  WHERE NOT fuel_window_ignored(acct, f.vehicle_id, f.stream);
