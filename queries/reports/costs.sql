-- Costs and CO₂ per vehicle × local month (queries/models/prices.sql for the prices rules):
-- distance from the counted odometer windows and fuel from the counted fuel windows (the same
-- models as mileage and fuel, so the figures tie), fuel cost = litres × the month's price for the
-- vehicle's fuel type, toll charges = the tariffs of the month's toll passages, CO₂ = litres × the
-- fuel type's factor. Unknown is blank, never 0: no price, no tariff for any passage of the month
-- (toll_no_tariff counts them; toll_charges_known sums the rest), no fuel figure, or an electric
-- vehicle (the API's energy is not synced) leave the figure, and cost_per_km, blank.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
prof AS (SELECT * FROM vehicle_profiles($account)),
rng AS (SELECT * FROM local_months($zone, $from_day, $to_day)),
dist AS (
  SELECT vehicle_id, period, sum(counted_m) AS distance_m
  FROM odometer_windows_classified($account, $zone, $from_day, $to_day)
  GROUP BY vehicle_id, period
),
fuel AS (
  SELECT vehicle_id, period, sum(used_l) AS used_l, min(source) AS source
  FROM fuel_windows_classified($account, $zone, $from_day, $to_day)
  GROUP BY vehicle_id, period
),
tolls AS (
  SELECT
    tp.vehicle_id,
    local_month(tp.enter_time, $zone) AS period,
    count(*) AS passages,
    count(*) FILTER (WHERE tp.charge IS NULL) AS no_tariff,
    sum(tp.charge) AS charged
  FROM toll_passage_charges($account, $zone) AS tp, rng
  WHERE tp.enter_time >= rng.t0 AND tp.enter_time < rng.t1
  GROUP BY tp.vehicle_id, period
),
k AS (
  SELECT vehicle_id, period FROM dist
  UNION
  SELECT vehicle_id, period FROM fuel
  UNION
  SELECT vehicle_id, period FROM tolls
),
c AS (
  SELECT
    k.vehicle_id,
    k.period,
    dist.distance_m,
    fuel.used_l,
    fuel.source,
    prof.fuel_type,
    prof.vehicle_class,
    prof.currency,
    pf.price_per_l,
    fuel.used_l * pf.price_per_l AS fuel_cost,
    coalesce(tolls.passages, 0) AS passages,
    coalesce(tolls.no_tariff, 0) AS no_tariff,
    coalesce(tolls.charged, 0) AS charged_known,
    CASE
      WHEN prof.vehicle_class IS NULL THEN NULL
      WHEN coalesce(tolls.no_tariff, 0) > 0 THEN NULL
      ELSE coalesce(tolls.charged, 0)
    END AS toll_charges,
    CASE WHEN prof.fuel_type <> 'electric' THEN fuel.used_l * ef.kg_per_l END AS co2_kg
  FROM k
  LEFT JOIN dist ON dist.vehicle_id = k.vehicle_id AND dist.period = k.period
  LEFT JOIN fuel ON fuel.vehicle_id = k.vehicle_id AND fuel.period = k.period
  LEFT JOIN tolls ON tolls.vehicle_id = k.vehicle_id AND tolls.period = k.period
  LEFT JOIN prof ON prof.vehicle_id = k.vehicle_id
  LEFT JOIN price_fuel AS pf ON pf.account = $account AND pf.fuel_type = prof.fuel_type AND pf.period = k.period
  LEFT JOIN price_emission_factors AS ef ON ef.account = $account AND ef.fuel_type = prof.fuel_type
)
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
  c.price_per_l::DOUBLE AS fuel_price_per_l,
  round(c.fuel_cost, 2)::DOUBLE AS fuel_cost,
  c.passages::INTEGER AS toll_passages,
  c.no_tariff::INTEGER AS toll_no_tariff,
  round(c.charged_known, 2)::DOUBLE AS toll_charges_known,
  round(c.toll_charges, 2)::DOUBLE AS toll_charges,
  round((c.fuel_cost + c.toll_charges) / nullif(c.distance_m / 1000.0, 0), 4)::DOUBLE AS cost_per_km,
  round(c.co2_kg, 3)::DOUBLE AS co2_kg,
  c.currency,
  $zone::VARCHAR AS zone
FROM c
LEFT JOIN veh ON veh.vehicle_id = c.vehicle_id
WHERE ($vehicle::BIGINT IS NULL OR c.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, c.vehicle_id, c.period;
