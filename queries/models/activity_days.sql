-- Vehicle activity per local day: the rule behind the utilisation reports, written once.
--
-- activity_days(acct, zone, from_day, to_day): every known vehicle × local day of the range
-- (both inclusive), with
--   synced        the day's GET /vehicles/activity window is done (the day's coverage of the
--                 fleet-wide activity stream: queries/models/coverage.sql);
--   open_late     not synced, but pulled and still open for late data (an incomplete window
--                 inside the look-back): its figures are not shown yet, and it is not a gap;
--   driving_s, idle_s   engine-on seconds that day as the API gave them; NULL when the day was
--                 never synced, or the API did not list the vehicle that day (unknown, never 0);
--   working_day   the day is one of the account's working weekdays (account_working_hours,
--                 default Monday–Friday; 07:00–18:00);
--   after_hours_s engine-on seconds that day outside the working hours (all of them on a
--                 non-working day), from the synced trips (trip_after_hours,
--                 queries/models/working_hours.sql); NULL when the day's activity or trips are
--                 not synced.
-- The figures are the daily facts (vehicle_day_facts: the 'activity' rows and the trips'
-- after-hours), so a year at 5,000 vehicles reads 1.8 M stored rows, not every trip spread over
-- its days.
CREATE OR REPLACE TEMP MACRO activity_days(acct, zone, from_day, to_day) AS TABLE
  WITH
  cov AS (
    SELECT days.day, days.t0, days.working_day, a.synced, a.pulled AS pulled_open, t.synced AS trips_synced
    FROM working_days(acct, zone, from_day, to_day) AS days
    JOIN fleet_stream_day_coverage(acct, zone, from_day, to_day, 'infinity'::TIMESTAMPTZ, 'activity') AS a
      ON a.day = days.day
    JOIN fleet_stream_day_coverage(acct, zone, from_day, to_day, 'infinity'::TIMESTAMPTZ, 'trips') AS t
      ON t.day = days.day
  ),
  -- the vehicles the activity lists (each with each registration it gave), a few thousand rows
  -- before they are compared with the known vehicles, not every vehicle-day
  listed AS MATERIALIZED (
    SELECT DISTINCT a.vehicle_id, a.registration FROM vehicle_activity AS a WHERE a.account = acct
  ),
  veh AS (
    SELECT vehicle_id, registration, department FROM vehicle_departments(acct)
    UNION
    SELECT l.vehicle_id, l.registration, NULL FROM listed AS l
    WHERE l.vehicle_id NOT IN (SELECT vehicle_id FROM vehicle_departments(acct))
  ),
  -- the day's activity row with the trips' after-hours (kept apart: one row each per vehicle-day;
  -- the after-hours count only beside an activity row), joined before they meet the vehicles ×
  -- days, so that join holds one table of a year's rows, not two (serve's 256 MB)
  act AS (
    SELECT a.vehicle_id, a.day, a.driving_s, a.idle_s, a.first_ignition_on, a.last_ignition_off,
      coalesce(t.after_hours_s, 0) AS after_s
    FROM vehicle_day_facts(acct, zone, from_day, to_day) AS a
    LEFT JOIN vehicle_day_facts(acct, zone, from_day, to_day) AS t
      ON t.stream = 'trips' AND t.vehicle_id = a.vehicle_id AND t.day = a.day
    WHERE a.stream = 'activity'
  )
  SELECT
    veh.vehicle_id,
    veh.registration,
    veh.department,
    cov.day,
    cov.t0 AS day_start,
    cov.synced,
    NOT cov.synced AND cov.pulled_open AS open_late,
    cov.working_day,
    CASE WHEN cov.synced THEN a.driving_s END AS driving_s,
    CASE WHEN cov.synced THEN a.idle_s END AS idle_s,
    CASE WHEN cov.synced THEN a.first_ignition_on END AS first_ignition_on,
    CASE WHEN cov.synced THEN a.last_ignition_off END AS last_ignition_off,
    CASE WHEN cov.synced AND cov.trips_synced THEN a.after_s END AS after_hours_s
  FROM veh
  CROSS JOIN cov
  LEFT JOIN act AS a ON a.vehicle_id = veh.vehicle_id AND a.day = cov.day;
