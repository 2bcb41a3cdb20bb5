-- The fuel windows behind fuel.sql, one row per window: for counter vehicles each ECU counter
-- window (counted, or left out because the counter went down or lacks a reading), for
-- vehicles without a counter the level-estimate windows. Same selection and rules as fuel.sql
-- (the local months the range touches), so for a vehicle-month the sum of fuel_used_l equals
-- that month's fuel_used_l and the rows with status 'left out' are its excluded_periods.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
counter_vehicles AS (
  SELECT vehicle_id FROM vehicles WHERE account = $account AND fuel_canbus_consumed
  UNION
  SELECT DISTINCT vehicle_id FROM fuel_consumed WHERE account = $account
),
w AS (
  SELECT
    f.vehicle_id,
    f.window_start,
    f.window_end,
    f.counter_start_l,
    f.counter_end_l,
    f.fuel_consumed_l AS reported_used_l,
    CASE
      WHEN f.counter_start_l IS NULL OR f.counter_end_l IS NULL THEN 'left out'
      WHEN f.counter_end_l < f.counter_start_l THEN 'left out'
      ELSE 'counted'
    END AS status,
    'counter' AS source
  FROM fuel_consumed AS f
  WHERE f.account = $account
  UNION ALL
  SELECT
    f.vehicle_id,
    f.window_start,
    f.window_end,
    NULL::DOUBLE,
    NULL::DOUBLE,
    f.estimated_used_l,
    CASE WHEN f.estimated_used_l IS NULL THEN 'no reading' ELSE 'counted' END,
    'level_estimate'
  FROM fuel_level AS f
  WHERE f.account = $account AND f.vehicle_id NOT IN (SELECT vehicle_id FROM counter_vehicles)
),
m AS (SELECT w.*, strftime(timezone($zone, w.window_start), '%Y-%m') AS period FROM w)
SELECT
  veh.registration,
  m.vehicle_id,
  veh.department,
  m.period,
  iso_local(m.window_start, $zone) AS window_start,
  iso_local(m.window_end, $zone) AS window_end,
  round((epoch(m.window_end) - epoch(m.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  round(m.counter_start_l, 3)::DOUBLE AS counter_start_l,
  round(m.counter_end_l, 3)::DOUBLE AS counter_end_l,
  CASE
    WHEN m.status <> 'counted' THEN NULL
    WHEN m.source = 'counter' THEN round(m.counter_end_l - m.counter_start_l, 3)
    ELSE round(m.reported_used_l, 3)
  END::DOUBLE AS fuel_used_l,
  m.status,
  CASE m.status
    WHEN 'left out' THEN
      CASE WHEN m.counter_end_l < m.counter_start_l THEN 'counter went down' ELSE 'counter reading missing' END
    WHEN 'no reading' THEN 'no level estimate'
  END AS reason,
  round(m.reported_used_l, 3)::DOUBLE AS reported_used_l,
  m.source,
  l.status AS ledger_status,
  l.reason AS ledger_reason,
  $zone::VARCHAR AS zone
FROM m
LEFT JOIN veh ON veh.vehicle_id = m.vehicle_id
LEFT JOIN ledger AS l
  ON l.account = $account
  AND l.stream = CASE m.source WHEN 'counter' THEN 'fuel_consumed' ELSE 'fuel_level' END
  AND l.scope = m.vehicle_id::VARCHAR
  AND l.window_start = m.window_start AND l.window_end = m.window_end
WHERE m.period BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
  AND ($vehicle::BIGINT IS NULL OR m.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, m.vehicle_id, m.window_start;
