-- Fuel efficiency per driver × local month (issue 27): where the trips' distance can carry the
-- litres (queries/models/fuel_efficiency.sql: the litres of a vehicle's counted block shared among
-- the trips that start in it by their distance), the litres the driver's trips carry over those
-- trips' km. Only trips in blocks where both the odometer and the fuel counter count (counter
-- vehicles) take part; trip_km and trips say how much of the driver's driving that is. Where a
-- vehicle-month's trips would carry more litres than the vehicle counted that month (trips running
-- on past a block's end), their litres and km are scaled down alike (the model's rule), so the
-- drivers of a month carry at most the vehicles' counted litres and L/100 km (carried litres over
-- the km that carry them) stays the blocks' own. The trips
-- without a driver id are the "no driver recorded" row. A driver-month without such trips has no
-- row (unknown, never 0).
-- coverage / covered_share: of the month's ended local days, those on which the trips and the
-- odometer and fuel counter of every counter vehicle the driver drove in the month are settled
-- (fuel_efficiency_driver_months, queries/models/fuel_efficiency.sql).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
ft AS (
  SELECT ft.*
  FROM fuel_efficiency_driver_months($account, $zone, $from_day, $to_day, $now, $vehicle::BIGINT,
    $department::VARCHAR) AS ft
  LEFT JOIN veh ON veh.vehicle_id = ft.vehicle_id
  WHERE vehicle_selected(ft.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
),
names AS (SELECT * FROM driver_names($account))
SELECT
  ft.driver_id,
  CASE WHEN ft.driver_id IS NULL THEN 'no driver recorded' ELSE names.driver_name END AS driver_name,
  ft.period,
  sum(ft.trips)::INTEGER AS trips,
  count(DISTINCT ft.vehicle_id)::INTEGER AS vehicles,
  round(sum(ft.trip_km), 3)::DOUBLE AS trip_km,
  round(sum(ft.litres_carried), 3)::DOUBLE AS carried_l,
  round(sum(ft.litres_carried) / nullif(sum(ft.counted_km), 0) * 100, 2)::DOUBLE AS l_per_100km,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(any_value(ft.synced_days), 0), coalesce(any_value(ft.range_days), 0)) AS coverage,
  round(any_value(ft.synced_days) / nullif(any_value(ft.range_days), 0), 4)::DOUBLE AS covered_share
FROM ft
LEFT JOIN names ON names.driver_id = ft.driver_id
GROUP BY ft.driver_id, names.driver_name, ft.period
ORDER BY ft.period, ft.driver_id IS NULL, names.driver_name NULLS LAST, ft.driver_id;
