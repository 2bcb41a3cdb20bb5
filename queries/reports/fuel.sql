-- Fuel used per vehicle × local month: the sum of the counted windows of fuel_windows_classified
-- (queries/models/fuel_windows.sql). Vehicles with the ECU counter: counter differences; a window
-- whose counter went down, or that lacks a reading at either end, is left out and counted in
-- excluded_periods (never a negative litre, never a window dropped without saying so). Vehicles
-- without a counter but with a level sensor: the API's estimated fuel used
-- (source = level_estimate). A from/to range selects the local months it touches.
-- Every vehicle of the fleet × every month of the range is a row (issue 12): a vehicle with no
-- counter and no level sensor has source 'electric' (battery-electric) or 'none' and a blank
-- fuel_used_l. coverage / covered_share count the month's ended vehicle-days that its fuel stream
-- synced (fuel_consumed for the counter, fuel_level for the estimate; for 'electric' and 'none',
-- which have no fuel stream, the odometer's: whether the vehicle was synced at all). A month never
-- synced has a blank fuel_used_l, never 0.
WITH
veh AS (
  SELECT vd.*, fs.source AS sensor_source
  FROM vehicle_departments($account) AS vd
  LEFT JOIN vehicle_fuel_sources($account) AS fs ON fs.vehicle_id = vd.vehicle_id
),
grid AS (SELECT veh.vehicle_id, m.period FROM veh, range_months($from_day, $to_day) AS m),
vdc AS (SELECT * FROM vehicle_month_coverage($account, $zone, $from_day, $to_day, $now, NULL)),
u AS (
  SELECT
    vehicle_id,
    period,
    sum(used_l) AS used_l,
    count(*) FILTER (WHERE excluded) AS excluded,
    source
  FROM fuel_windows_classified($account, $zone, $from_day, $to_day)
  GROUP BY vehicle_id, period, source
),
k AS (
  SELECT g.vehicle_id, g.period, coalesce(u.source, veh.sensor_source, 'none') AS source
  FROM (SELECT vehicle_id, period FROM grid UNION SELECT vehicle_id, period FROM u) AS g
  LEFT JOIN veh ON veh.vehicle_id = g.vehicle_id
  LEFT JOIN u ON u.vehicle_id = g.vehicle_id AND u.period = g.period
)
SELECT
  veh.registration,
  k.vehicle_id,
  veh.department,
  k.period,
  round(u.used_l, 3)::DOUBLE AS fuel_used_l,
  coalesce(u.excluded, 0)::INTEGER AS excluded_periods,
  k.source,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(vdc.synced_days, 0), coalesce(vdc.range_days, 0)) AS coverage,
  round(vdc.synced_days / nullif(vdc.range_days, 0), 4)::DOUBLE AS covered_share
FROM k
LEFT JOIN u ON u.vehicle_id = k.vehicle_id AND u.period = k.period AND u.source = k.source
LEFT JOIN vdc ON vdc.vehicle_id = k.vehicle_id AND vdc.period = k.period
  AND vdc.stream = CASE k.source WHEN 'counter' THEN 'fuel_consumed' WHEN 'level_estimate' THEN 'fuel_level' ELSE 'odometer' END
LEFT JOIN veh ON veh.vehicle_id = k.vehicle_id
WHERE vehicle_selected(k.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, k.vehicle_id, k.period;
