-- Fuel used per vehicle × local month. Vehicles with the ECU counter: the sum of
-- (counter_end - counter_start) over windows where the counter did not go down; a window whose
-- counter went down, or that lacks a reading at either end, is left out and counted in
-- excluded_periods (never a negative litre, never a window dropped without saying so).
-- Vehicles without a counter but with a level sensor: the API's estimated fuel used
-- (source = level_estimate). A from/to range selects the local months it touches.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
counter_vehicles AS (
  SELECT vehicle_id FROM vehicles WHERE account = $account AND fuel_canbus_consumed
  UNION
  SELECT DISTINCT vehicle_id FROM fuel_consumed WHERE account = $account
),
c AS (
  SELECT
    f.vehicle_id,
    strftime(timezone($zone, f.window_start), '%Y-%m') AS period,
    sum(f.counter_end_l - f.counter_start_l) FILTER (WHERE coalesce(f.counter_end_l >= f.counter_start_l, false)) AS used_l,
    count(*) FILTER (WHERE NOT coalesce(f.counter_end_l >= f.counter_start_l, false)) AS excluded,
    'counter' AS source
  FROM fuel_consumed AS f
  WHERE f.account = $account
  GROUP BY ALL
),
l AS (
  SELECT
    f.vehicle_id,
    strftime(timezone($zone, f.window_start), '%Y-%m') AS period,
    sum(f.estimated_used_l) AS used_l,
    0 AS excluded,
    'level_estimate' AS source
  FROM fuel_level AS f
  WHERE f.account = $account AND f.vehicle_id NOT IN (SELECT vehicle_id FROM counter_vehicles)
  GROUP BY ALL
),
u AS (SELECT * FROM c UNION ALL SELECT * FROM l)
SELECT
  veh.registration,
  u.vehicle_id,
  veh.department,
  u.period,
  round(u.used_l, 3)::DOUBLE AS fuel_used_l,
  u.excluded::INTEGER AS excluded_periods,
  u.source,
  $zone::VARCHAR AS zone
FROM u
LEFT JOIN veh ON veh.vehicle_id = u.vehicle_id
WHERE u.period BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
  AND ($vehicle::BIGINT IS NULL OR u.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, u.vehicle_id, u.period;
