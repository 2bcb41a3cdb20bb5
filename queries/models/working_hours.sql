-- The account's working hours, once: its row of account_working_hours (recorded by each sync
-- from FLEETSYNC_WORKING_HOURS), else Monday–Friday 07:00–18:00.
--   working_hours_of(acct)  one row: weekdays (ISO, 1 = Monday), start_min, end_min (local
--                           minutes after midnight; work runs [start_min, end_min))
CREATE OR REPLACE TEMP MACRO working_hours_of(acct) AS TABLE
  SELECT weekdays, start_min, end_min FROM (
    SELECT weekdays, start_min, end_min, 0 AS o FROM account_working_hours WHERE account = acct
    UNION ALL
    SELECT [1, 2, 3, 4, 5], 420, 1080, 1
  ) ORDER BY o LIMIT 1;

-- working_days(acct, zone, from_day, to_day): every local day of [from_day, to_day] (both
-- inclusive) with its bounds as instants [t0, t1), its working hours [w0, w1) and working_day (one
-- of the account's working weekdays).
CREATE OR REPLACE TEMP MACRO working_days(acct, zone, from_day, to_day) AS TABLE
  SELECT
    d::DATE AS day,
    timezone(zone, d::DATE::TIMESTAMP) AS t0,
    timezone(zone, (d::DATE + 1)::TIMESTAMP) AS t1,
    timezone(zone, d::DATE::TIMESTAMP + to_minutes(wh.start_min)) AS w0,
    timezone(zone, d::DATE::TIMESTAMP + to_minutes(wh.end_min)) AS w1,
    list_contains(wh.weekdays, isodow(d::DATE)) AS working_day
  FROM unnest(generate_series(from_day::DATE::TIMESTAMP, to_day::DATE::TIMESTAMP, INTERVAL 1 DAY)) AS g(d)
  CROSS JOIN working_hours_of(acct) AS wh;

-- trip_after_hours(acct, zone, from_day, to_day): per vehicle and local day of [from_day, to_day]
-- that a trip overlaps, the engine-on seconds outside the working hours (a trip is engine-on from
-- its start to its end; on a day that is not a working weekday all of them): after_s. The rule of
-- the utilisation reports' after-hours figure, kept in the daily facts (queries/models/daily_facts.sql).
-- Each trip is spread over the local days it overlaps (its start's to its end's), then joined with
-- those days' bounds by day, so the cost grows with the trips, not trips × days.
CREATE OR REPLACE TEMP MACRO trip_after_hours(acct, zone, from_day, to_day) AS TABLE
  WITH
  days AS (SELECT * FROM working_days(acct, zone, from_day, to_day)),
  -- each trip once per local day it overlaps (start < the day's end, end > its start): the days
  -- from its start's to that of the instant just before its end
  spread AS (
    SELECT t.vehicle_id, t.start_time, t.end_time,
      unnest(generate_series(
        timezone(zone, t.start_time)::DATE::TIMESTAMP,
        timezone(zone, t.end_time - INTERVAL 1 MICROSECOND)::DATE::TIMESTAMP,
        INTERVAL 1 DAY
      ))::DATE AS day
    FROM trips AS t
    WHERE t.account = acct
      AND t.start_time < local_range_end(zone, to_day)
      AND t.end_time > local_range_start(zone, from_day)
  )
  SELECT
    s.vehicle_id,
    days.day,
    sum(
      epoch(least(s.end_time, days.t1)) - epoch(greatest(s.start_time, days.t0))
      - CASE WHEN days.working_day
          THEN greatest(0, epoch(least(s.end_time, days.w1)) - epoch(greatest(s.start_time, days.w0)))
          ELSE 0 END
    ) AS after_s
  FROM spread AS s
  JOIN days ON days.day = s.day
  GROUP BY s.vehicle_id, days.day;
