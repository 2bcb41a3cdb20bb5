-- Fuel efficiency per vehicle × local month (the local months the range touches; issue 27), for
-- the vehicles with a fuel counter. The rules are the model's (queries/models/fuel_efficiency.sql):
-- litres and km of the same counted windows only (blocks where both the odometer and the counter
-- count), L/100 km = litres ÷ km × 100. baseline_l_per_100km: the vehicle's own litres over km of
-- the three months before (those of them with counted km; baseline_months says how many), and
-- outlier when the month is more than FLEETSYNC_FUEL_OUTLIER_PCT percent above it. The class
-- comparison: every counter vehicle of the same vehicle_class (as the API names it) that month,
-- litres over km together; vs_class is the vehicle's difference from it, given when the class has
-- at least two vehicles with a figure. Unknown (no counted window, no km) stays blank, never 0;
-- left_out_periods counts the blocks that could not count (a window left out or missing in one of
-- the streams); coverage is the month's synced days of the fuel counter, as in `fuel`.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
cls AS (SELECT vehicle_id, nullif(trim(vehicle_class), '') AS vehicle_class FROM vehicles WHERE account = $account),
cv AS (SELECT vehicle_id FROM fuel_counter_vehicles($account)),
blocks AS (SELECT * FROM fuel_efficiency_blocks($account, $zone, months_back($from_day, 3), $to_day)),
grid AS (
  SELECT cv.vehicle_id, m.period
  FROM cv, local_month_list($zone, months_back($from_day, 3), $to_day) AS m
),
vm AS (
  SELECT
    grid.vehicle_id,
    grid.period,
    sum(b.km) AS km,
    sum(b.litres) AS litres,
    count(b.block_start) FILTER (WHERE NOT b.counted) AS left_out
  FROM grid
  LEFT JOIN blocks AS b ON b.vehicle_id = grid.vehicle_id AND b.period = grid.period
  GROUP BY ALL
),
eff AS (
  SELECT vm.*, CASE WHEN vm.km > 0 THEN vm.litres / vm.km * 100 END AS l100 FROM vm
),
base AS (
  SELECT
    e.vehicle_id,
    e.period,
    sum(p.litres) / nullif(sum(p.km) FILTER (WHERE p.litres IS NOT NULL), 0) * 100 AS baseline,
    count(*) FILTER (WHERE p.km > 0 AND p.litres IS NOT NULL) AS baseline_months
  -- the three months before as three rows, so the join is on equal keys (an IN list of them made
  -- it a nested loop over every vehicle-month pair: 5 s for a year at 5,000 vehicles)
  FROM eff AS e
  CROSS JOIN (SELECT unnest([1, 2, 3]) AS back) AS k
  LEFT JOIN eff AS p ON p.vehicle_id = e.vehicle_id AND p.period = month_before(e.period, k.back)
    AND p.km > 0 AND p.litres IS NOT NULL
  GROUP BY e.vehicle_id, e.period
),
class_month AS (
  SELECT
    cls.vehicle_class,
    eff.period,
    sum(eff.litres) FILTER (WHERE eff.l100 IS NOT NULL) / sum(eff.km) FILTER (WHERE eff.l100 IS NOT NULL) * 100
      AS class_l100,
    count(*) FILTER (WHERE eff.l100 IS NOT NULL) AS class_vehicles
  FROM eff JOIN cls ON cls.vehicle_id = eff.vehicle_id
  WHERE cls.vehicle_class IS NOT NULL
  GROUP BY ALL
),
vdc AS (SELECT * FROM vehicle_month_coverage($account, $zone, $from_day, $to_day, $now, 'fuel_consumed'))
SELECT
  veh.registration,
  eff.vehicle_id,
  veh.department,
  cls.vehicle_class,
  eff.period,
  round(eff.km, 3)::DOUBLE AS counted_km,
  round(eff.litres, 3)::DOUBLE AS counted_l,
  round(eff.l100, 2)::DOUBLE AS l_per_100km,
  round(base.baseline, 2)::DOUBLE AS baseline_l_per_100km,
  base.baseline_months::INTEGER AS baseline_months,
  round(eff.l100 / base.baseline - 1, 4)::DOUBLE AS above_baseline,
  fuel_efficiency_outlier(eff.l100, base.baseline, $outlier_pct) AS outlier,
  round(cm.class_l100, 2)::DOUBLE AS class_l_per_100km,
  cm.class_vehicles::INTEGER AS class_vehicles,
  CASE WHEN cm.class_vehicles >= 2 THEN round(eff.l100 / cm.class_l100 - 1, 4) END::DOUBLE AS vs_class,
  eff.left_out::INTEGER AS left_out_periods,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(vdc.synced_days, 0), coalesce(vdc.range_days, 0)) AS coverage,
  round(vdc.synced_days / nullif(vdc.range_days, 0), 4)::DOUBLE AS covered_share
FROM eff
JOIN base ON base.vehicle_id = eff.vehicle_id AND base.period = eff.period
LEFT JOIN veh ON veh.vehicle_id = eff.vehicle_id
LEFT JOIN cls ON cls.vehicle_id = eff.vehicle_id
LEFT JOIN class_month AS cm ON cm.vehicle_class = cls.vehicle_class AND cm.period = eff.period
LEFT JOIN vdc ON vdc.vehicle_id = eff.vehicle_id AND vdc.period = eff.period AND vdc.stream = 'fuel_consumed'
WHERE eff.period >= month_of_day($from_day)
  AND vehicle_selected(eff.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, eff.vehicle_id, eff.period;
