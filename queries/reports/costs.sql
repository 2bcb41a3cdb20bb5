-- Costs and CO₂ per vehicle × local month: vehicle_month_costs (queries/models/prices.sql), whose
-- distance and fuel are the mileage and fuel reports' figures. Unknown is blank, never 0: no
-- price, a passage of the month without a tariff (toll_no_tariff counts them, toll_charges_known
-- sums the rest), no fuel figure, or an electric vehicle's month with no synced EV energy day
-- leave the figure, and cost_per_km, blank. Electric vehicles: energy_kwh (battery energy drawn,
-- over energy_days synced local days) × the month's `electric` price per kWh is their fuel_cost,
-- × the grid factor their CO₂.
-- Every vehicle × month of the range is a row; coverage / covered_share say how many of the
-- month's ended days were synced for every stream its costs rest on (odometer, the vehicle's fuel
-- stream, toll visits: vehicle_month_cost_coverage, queries/models/coverage.sql).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
cov AS (SELECT * FROM vehicle_month_cost_coverage($account, $zone, $from_day, $to_day, $now))
SELECT
  veh.registration,
  c.vehicle_id,
  veh.department,
  c.period,
  c.fuel_type,
  c.vehicle_class,
  round(c.distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  round(c.used_l, 3)::DOUBLE AS fuel_used_l,
  c.source AS fuel_source,
  round(c.energy_kwh, 3)::DOUBLE AS energy_kwh,
  c.energy_days::INTEGER AS energy_days,
  c.price_per_l::DOUBLE AS fuel_price_per_l,
  round(c.fuel_cost, 2)::DOUBLE AS fuel_cost,
  c.passages::INTEGER AS toll_passages,
  c.no_tariff::INTEGER AS toll_no_tariff,
  round(c.charged_known, 2)::DOUBLE AS toll_charges_known,
  round(c.toll_charges, 2)::DOUBLE AS toll_charges,
  round((c.fuel_cost + c.toll_charges) / nullif(c.distance_m / 1000.0, 0), 4)::DOUBLE AS cost_per_km,
  round(c.co2_kg, 3)::DOUBLE AS co2_kg,
  c.currency,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(cov.synced_days, 0), coalesce(cov.range_days, 0)) AS coverage,
  round(cov.synced_days / nullif(cov.range_days, 0), 4)::DOUBLE AS covered_share
FROM vehicle_month_costs($account, $zone, $from_day, $to_day) AS c
LEFT JOIN veh ON veh.vehicle_id = c.vehicle_id
LEFT JOIN cov ON cov.vehicle_id = c.vehicle_id AND cov.period = c.period
WHERE vehicle_selected(c.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, c.vehicle_id, c.period;
