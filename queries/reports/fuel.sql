-- Fuel used per vehicle × local month: the sum of the counted windows of fuel_windows_classified
-- (queries/models/fuel_windows.sql). Vehicles with the ECU counter: counter differences; a window
-- whose counter went down, or that lacks a reading at either end, is left out and counted in
-- excluded_periods (never a negative litre, never a window dropped without saying so). Vehicles
-- without a counter but with a level sensor: the API's estimated fuel used
-- (source = level_estimate). A from/to range selects the local months it touches.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
u AS (
  SELECT
    vehicle_id,
    period,
    sum(used_l) AS used_l,
    count(*) FILTER (WHERE excluded) AS excluded,
    source
  FROM fuel_windows_classified($account, $zone, $from_day, $to_day)
  GROUP BY vehicle_id, period, source
)
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
WHERE ($vehicle::BIGINT IS NULL OR u.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, u.vehicle_id, u.period;
