-- Every window left out of a total, with its reason and its span: odometer windows with a reset
-- or a tracker change (mileage.sql) and fuel-counter windows whose counter went down or lacks a
-- reading (fuel.sql).
-- Same month selection as those reports, so the rows here add up to their excluded_periods.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
x AS (
  SELECT
    'odometer' AS stream, o.vehicle_id, o.window_start, o.window_end,
    concat_ws(' and ',
      CASE WHEN o.odometer_reset THEN 'odometer_reset' END,
      CASE WHEN o.terminal_has_changed THEN 'terminal_has_changed' END) AS reason,
    round(o.distance_m / 1000.0, 3)::DOUBLE AS reported_distance_km,
    NULL::DOUBLE AS counter_start_l,
    NULL::DOUBLE AS counter_end_l
  FROM odometer_windows AS o
  WHERE o.account = $account AND (o.odometer_reset OR o.terminal_has_changed)
  UNION ALL
  SELECT
    'fuel_consumed', f.vehicle_id, f.window_start, f.window_end,
    CASE WHEN f.counter_end_l < f.counter_start_l THEN 'fuel_counter_went_down' ELSE 'fuel_counter_missing' END,
    NULL, f.counter_start_l, f.counter_end_l
  FROM fuel_consumed AS f
  WHERE f.account = $account AND NOT coalesce(f.counter_end_l >= f.counter_start_l, false)
)
SELECT
  veh.registration,
  x.vehicle_id,
  veh.department,
  x.stream,
  strftime(timezone($zone, x.window_start), '%Y-%m') AS period,
  iso_local(x.window_start, $zone) AS window_start,
  iso_local(x.window_end, $zone) AS window_end,
  round((epoch(x.window_end) - epoch(x.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  x.reason,
  l.reason AS ledger_reason,
  x.reported_distance_km,
  x.counter_start_l,
  x.counter_end_l,
  $zone::VARCHAR AS zone
FROM x
LEFT JOIN veh ON veh.vehicle_id = x.vehicle_id
LEFT JOIN ledger AS l
  ON l.account = $account AND l.stream = x.stream AND l.scope = x.vehicle_id::VARCHAR
  AND l.window_start = x.window_start AND l.window_end = x.window_end
WHERE strftime(timezone($zone, x.window_start), '%Y-%m')
  BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
  AND ($vehicle::BIGINT IS NULL OR x.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY x.window_start, veh.registration, x.stream;
