-- Records per day seen in the last 30 days of stored history, to estimate page counts: $1 account.
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
  CASE WHEN (SELECT count(*) FROM trips WHERE account = $1) > 0 THEN (SELECT r FROM t) END AS trips_per_day,
  CASE WHEN (SELECT count(*) FROM geofence_visits WHERE account = $1) > 0 THEN (SELECT r FROM v) END AS visits_per_day,
  CASE WHEN (SELECT count(*) FROM site_geofence_visits WHERE account = $1) > 0 THEN (SELECT r FROM s) END AS site_visits_per_day,
  CASE WHEN (SELECT count(*) FROM carpool_bookings WHERE account = $1) > 0 THEN (SELECT r FROM b) END AS bookings_per_day,
  CASE WHEN (SELECT count(*) FROM fuel_fills WHERE account = $1) > 0 THEN (SELECT r FROM f) END AS fills_per_day
