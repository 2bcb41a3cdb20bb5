-- Costs and CO₂ per department × local month, from vehicle_month_costs (queries/models/prices.sql).
-- A sum is blank when any vehicle-month in it is unknown: fuel cost and CO₂ over the vehicle-months
-- with a fuel figure or EV energy (vehicle-months with neither are not in them), toll charges over
-- all. unknown_vehicle_months counts the vehicle-months with distance whose fuel cost or toll
-- charges are unknown; cost_per_km (fuel cost + toll charges over distance) needs every one known.
-- The vehicles without a department are one row per month, department 'no department' (issue 25),
-- so the rows of a month add up to the fleet and none reads as an unknown department.
-- Sums are of the costs report's rounded per-vehicle figures (each rounded as that report rounds
-- it), so a department's row, and the table's total, tie to the costs rows and tiles to the cent.
-- A vehicle-month with a fuel stream (or electric) but no fuel figure is unknown, not left out.
-- coverage / covered_share: of the ended vehicle-days of the department's month, those synced for
-- every stream its costs rest on (vehicle_month_cost_coverage, queries/models/coverage.sql).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
cov AS (SELECT * FROM vehicle_month_cost_coverage($account, $zone, $from_day, $to_day, $now))
SELECT
  coalesce(veh.department, 'no department') AS department,
  c.period,
  count(DISTINCT c.vehicle_id)::INTEGER AS vehicles,
  round(sum(round(c.distance_m / 1000.0, 3)), 3)::DOUBLE AS distance_km,
  round(sum(round(c.used_l, 3)), 3)::DOUBLE AS fuel_used_l,
  (CASE WHEN bool_and(c.fuel_cost IS NOT NULL OR coalesce(fs.source, 'none') = 'none') THEN round(sum(round(c.fuel_cost, 2)), 2) END)::DOUBLE
    AS fuel_cost,
  (CASE WHEN bool_and(c.passages IS NOT NULL) THEN sum(c.passages) END)::INTEGER AS toll_passages,
  (CASE WHEN bool_and(c.no_tariff IS NOT NULL) THEN sum(c.no_tariff) END)::INTEGER AS toll_no_tariff,
  (CASE WHEN bool_and(c.toll_charges IS NOT NULL) THEN round(sum(round(c.toll_charges, 2)), 2) END)::DOUBLE AS toll_charges,
  round(
    CASE
      WHEN bool_and(c.fuel_cost IS NOT NULL AND c.toll_charges IS NOT NULL)
        THEN (sum(c.fuel_cost) + sum(c.toll_charges)) / nullif(sum(c.distance_m) / 1000.0, 0)
    END,
    4
  )::DOUBLE AS cost_per_km,
  (CASE WHEN bool_and(c.co2_kg IS NOT NULL OR coalesce(fs.source, 'none') = 'none') THEN round(sum(round(c.co2_kg, 3)), 3) END)::DOUBLE AS co2_kg,
  count(*) FILTER (WHERE c.distance_m > 0 AND (c.fuel_cost IS NULL OR c.toll_charges IS NULL))::INTEGER
    AS unknown_vehicle_months,
  any_value(c.currency) AS currency,
  coverage_label(coalesce(sum(cov.synced_days), 0), coalesce(sum(cov.range_days), 0)) AS coverage,
  round(sum(cov.synced_days) / nullif(sum(cov.range_days), 0), 4)::DOUBLE AS covered_share
FROM vehicle_month_costs($account, $zone, $from_day, $to_day) AS c
LEFT JOIN veh ON veh.vehicle_id = c.vehicle_id
LEFT JOIN vehicle_fuel_sources($account) AS fs ON fs.vehicle_id = c.vehicle_id
LEFT JOIN cov ON cov.vehicle_id = c.vehicle_id AND cov.period = c.period
WHERE vehicle_selected(c.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY veh.department, c.period
ORDER BY veh.department IS NULL, veh.department, c.period;
