-- Litres filled vs litres used per vehicle × local month. used: the fuel report's figure (the
-- counted windows of fuel_windows_classified, counter or level estimate). filled: the month's
-- fills, where fills are synced for the vehicle (the fuel_fills ledger covers part of the month;
-- else blank: not synced, not zero). difference_l = filled − used (blank when either is).
-- Every vehicle with a fuel stream (counter or level estimate) × every month of the range is a row;
-- coverage / covered_share say how many of the month's ended days both its fills (fuel_fills,
-- pulled for vehicles with a level sensor) and its fuel stream settled
-- (vehicle_month_fills_coverage, queries/models/coverage.sql); a month never synced is blank in
-- every figure and 'not_synced'.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
grid AS (
  SELECT fs.vehicle_id, m.period
  FROM vehicle_fuel_sources($account) AS fs, range_months($from_day, $to_day) AS m
  WHERE fs.fuel_stream IS NOT NULL
),
cov AS (SELECT * FROM vehicle_month_fills_coverage($account, $zone, $from_day, $to_day, $now)),
rng AS (SELECT * FROM local_months($zone, $from_day, $to_day)),
used AS (
  SELECT vehicle_id, period, sum(used_l) AS used_l, min(source) AS source
  FROM fuel_windows_classified($account, $zone, $from_day, $to_day)
  GROUP BY vehicle_id, period
),
fills AS (
  SELECT ff.vehicle_id, local_month(ff.fill_time, $zone) AS period, sum(ff.amount_l) AS filled_l, count(*) AS n
  FROM fuel_fills AS ff, rng
  WHERE ff.account = $account AND ff.fill_time >= rng.t0 AND ff.fill_time < rng.t1
  GROUP BY ff.vehicle_id, period
),
synced AS (
  SELECT DISTINCT TRY_CAST(l.scope AS BIGINT) AS vehicle_id, local_month(l.window_start, $zone) AS period
  FROM ledger AS l, rng
  WHERE l.account = $account AND l.stream = 'fuel_fills' AND l.status IN ('done', 'flagged')
    AND l.window_start >= rng.t0 AND l.window_start < rng.t1
),
k AS (
  SELECT vehicle_id, period FROM used
  UNION SELECT vehicle_id, period FROM synced
  UNION SELECT vehicle_id, period FROM grid
)
SELECT
  veh.registration,
  k.vehicle_id,
  veh.department,
  k.period,
  round(CASE WHEN synced.vehicle_id IS NOT NULL THEN coalesce(fills.filled_l, 0) END, 3)::DOUBLE AS filled_l,
  (CASE WHEN synced.vehicle_id IS NOT NULL THEN coalesce(fills.n, 0) END)::INTEGER AS fills,
  round(used.used_l, 3)::DOUBLE AS used_l,
  used.source,
  round(CASE WHEN synced.vehicle_id IS NOT NULL THEN coalesce(fills.filled_l, 0) END - used.used_l, 3)::DOUBLE
    AS difference_l,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(cov.synced_days, 0), coalesce(cov.range_days, 0)) AS coverage,
  round(cov.synced_days / nullif(cov.range_days, 0), 4)::DOUBLE AS covered_share
FROM k
LEFT JOIN used ON used.vehicle_id = k.vehicle_id AND used.period = k.period
LEFT JOIN synced ON synced.vehicle_id = k.vehicle_id AND synced.period = k.period
LEFT JOIN fills ON fills.vehicle_id = k.vehicle_id AND fills.period = k.period
LEFT JOIN veh ON veh.vehicle_id = k.vehicle_id
LEFT JOIN cov ON cov.vehicle_id = k.vehicle_id AND cov.period = k.period
WHERE vehicle_selected(k.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, k.vehicle_id, k.period;
