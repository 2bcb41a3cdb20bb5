-- The odometer windows behind mileage.sql, one row per window of
-- odometer_windows_classified (queries/models/odometer_windows.sql): the counted ones that make
-- up distance_km and the flagged ones with their reason code and span. Same model as mileage.sql,
-- so for a vehicle-month the sum of counted_km equals that month's distance_km and the rows with
-- counted = false are its excluded_periods.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
o AS (SELECT * FROM odometer_windows_classified($account, $zone, $from_day, $to_day))
SELECT
  veh.registration,
  o.vehicle_id,
  veh.department,
  o.period,
  iso_local(o.window_start, $zone) AS window_start,
  iso_local(o.window_end, $zone) AS window_end,
  round((epoch(o.window_end) - epoch(o.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  o.counted,
  CASE WHEN o.counted THEN round(o.counted_m / 1000.0, 3) ELSE 0 END::DOUBLE AS counted_km,
  round(o.distance_m / 1000.0, 3)::DOUBLE AS reported_distance_km,
  o.reason,
  round(o.start_odometer_m / 1000.0, 3)::DOUBLE AS start_odometer_km,
  round(o.end_odometer_m / 1000.0, 3)::DOUBLE AS end_odometer_km,
  iso_local(o.last_event_at, $zone) AS last_event_at,
  l.status AS ledger_status,
  l.reason AS ledger_reason,
  $zone::VARCHAR AS zone
FROM o
LEFT JOIN veh ON veh.vehicle_id = o.vehicle_id
LEFT JOIN ledger AS l
  ON l.account = $account AND l.stream = 'odometer' AND l.scope = o.vehicle_id::VARCHAR
  AND l.window_start = o.window_start AND l.window_end = o.window_end
WHERE vehicle_selected(o.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, o.vehicle_id, o.window_start;
