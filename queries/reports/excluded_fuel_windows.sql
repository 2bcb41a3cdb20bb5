-- The fuel-counter windows left out of fuel used (fuel.sql): a window whose cumulative ECU counter
-- went down (a counter reset) or lacks a reading at either end, with its span and the readings. Same month selection as
-- fuel.sql (the local months the range touches), so for a vehicle-month these rows are its
-- excluded_periods. The fuel used in such a window is not known (the counter restarted).
WITH
veh AS (SELECT * FROM vehicle_departments($account))
SELECT
  veh.registration,
  f.vehicle_id,
  veh.department,
  strftime(timezone($zone, f.window_start), '%Y-%m') AS period,
  iso_local(f.window_start, $zone) AS window_start,
  iso_local(f.window_end, $zone) AS window_end,
  round((epoch(f.window_end) - epoch(f.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  CASE WHEN f.counter_end_l < f.counter_start_l THEN 'fuel_counter_went_down' ELSE 'fuel_counter_missing' END AS reason,
  f.counter_start_l,
  f.counter_end_l,
  l.reason AS ledger_reason,
  $zone::VARCHAR AS zone
FROM fuel_consumed AS f
LEFT JOIN veh ON veh.vehicle_id = f.vehicle_id
LEFT JOIN ledger AS l
  ON l.account = $account AND l.stream = 'fuel_consumed' AND l.scope = f.vehicle_id::VARCHAR
  AND l.window_start = f.window_start AND l.window_end = f.window_end
WHERE f.account = $account AND NOT coalesce(f.counter_end_l >= f.counter_start_l, false)
  AND strftime(timezone($zone, f.window_start), '%Y-%m')
    BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
  AND ($vehicle::BIGINT IS NULL OR f.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY f.window_start, veh.registration, f.vehicle_id;
