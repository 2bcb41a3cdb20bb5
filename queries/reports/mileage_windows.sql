-- The odometer windows behind mileage.sql, one row per window: the clean ones that make up
-- distance_km and the excluded ones (odometer_reset / terminal_has_changed) with their reason and
-- span. Same month selection as mileage.sql (the local months the range touches), so for a
-- vehicle-month the sum of counted_km equals that month's distance_km and the rows with
-- counted = false are its excluded_periods.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
o AS (
  SELECT
    o.*,
    strftime(timezone($zone, o.window_start), '%Y-%m') AS period,
    (o.odometer_reset OR o.terminal_has_changed) AS flagged
  FROM odometer_windows AS o
  WHERE o.account = $account
    AND strftime(timezone($zone, o.window_start), '%Y-%m')
      BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
)
SELECT
  veh.registration,
  o.vehicle_id,
  veh.department,
  o.period,
  iso_local(o.window_start, $zone) AS window_start,
  iso_local(o.window_end, $zone) AS window_end,
  round((epoch(o.window_end) - epoch(o.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  NOT o.flagged AS counted,
  CASE WHEN o.flagged THEN 0 ELSE round(o.distance_m / 1000.0, 3) END::DOUBLE AS counted_km,
  round(o.distance_m / 1000.0, 3)::DOUBLE AS reported_distance_km,
  nullif(concat_ws(' and ',
    CASE WHEN o.odometer_reset THEN 'odometer_reset' END,
    CASE WHEN o.terminal_has_changed THEN 'terminal_has_changed' END), '') AS reason,
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
WHERE ($vehicle::BIGINT IS NULL OR o.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, o.vehicle_id, o.window_start;
