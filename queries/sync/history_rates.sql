-- Records per day seen in the last 30 days of stored history, to estimate page counts: $1 account.
-- Each table read twice at most: its latest instant, then the rows of the 30 days before it.
WITH t AS (
  SELECT count(*) / greatest(1, date_diff('day', min(start_time), max(start_time)) + 1) AS r
  FROM trips
  WHERE account = $1 AND start_time >= (SELECT max(start_time) FROM trips WHERE account = $1) - INTERVAL 30 DAY
), v AS (
  SELECT count(*) / greatest(1, date_diff('day', min(enter_time), max(enter_time)) + 1) AS r
  FROM geofence_visits
  WHERE account = $1 AND enter_time >= (SELECT max(enter_time) FROM geofence_visits WHERE account = $1) - INTERVAL 30 DAY
), s AS (
  SELECT count(*) / greatest(1, date_diff('day', min(enter_time), max(enter_time)) + 1) AS r
  FROM site_geofence_visits
  WHERE account = $1 AND enter_time >= (SELECT max(enter_time) FROM site_geofence_visits WHERE account = $1) - INTERVAL 30 DAY
), b AS (
  SELECT count(*) / greatest(1, date_diff('day', min(start_time), max(start_time)) + 1) AS r
  FROM carpool_bookings
  WHERE account = $1
), f AS (
  SELECT count(*) / greatest(1, date_diff('day', min(fill_time), max(fill_time)) + 1) AS r
  FROM fuel_fills
  WHERE account = $1 AND fill_time >= (SELECT max(fill_time) FROM fuel_fills WHERE account = $1) - INTERVAL 30 DAY
)
SELECT
  (SELECT CASE WHEN r > 0 THEN r END FROM t) AS trips_per_day,
  (SELECT CASE WHEN r > 0 THEN r END FROM v) AS visits_per_day,
  (SELECT CASE WHEN r > 0 THEN r END FROM s) AS site_visits_per_day,
  (SELECT CASE WHEN r > 0 THEN r END FROM b) AS bookings_per_day,
  (SELECT CASE WHEN r > 0 THEN r END FROM f) AS fills_per_day
