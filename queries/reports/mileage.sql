-- Mileage per vehicle × local month (the account's zone). Distance is the sum of odometer
-- windows in which neither odometer_reset nor terminal_has_changed is true (never trip_distance);
-- flagged windows are left out and counted in excluded_periods (listed by excluded_windows.sql).
-- complete: the month, up to the last synced instant, is covered by done/flagged ledger windows
-- and no window of the month is incomplete or failed (an open month whose window is still
-- incomplete is not complete, even when nothing after the last synced instant is expected yet). A from/to range selects the local months it touches.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
w AS (
  SELECT
    o.vehicle_id,
    strftime(timezone($zone, o.window_start), '%Y-%m') AS period,
    o.distance_m,
    (o.odometer_reset OR o.terminal_has_changed) AS flagged
  FROM odometer_windows AS o
  WHERE o.account = $account
    AND strftime(timezone($zone, o.window_start), '%Y-%m')
      BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')
),
agg AS (
  SELECT
    vehicle_id,
    period,
    sum(distance_m) FILTER (WHERE NOT flagged) AS distance_m,
    count(*) FILTER (WHERE flagged) AS excluded
  FROM w
  GROUP BY vehicle_id, period
),
led AS (
  SELECT scope, window_start, window_end, status
  FROM ledger
  WHERE account = $account AND stream = 'odometer'
),
through AS (SELECT max(window_end) AS t FROM led WHERE status IN ('done', 'flagged')),
mb AS (
  SELECT
    agg.vehicle_id,
    agg.period,
    timezone($zone, strptime(agg.period || '-01', '%Y-%m-%d')) AS ms,
    timezone($zone, strptime(agg.period || '-01', '%Y-%m-%d') + INTERVAL 1 MONTH) AS mend,
    least(
      timezone($zone, strptime(agg.period || '-01', '%Y-%m-%d') + INTERVAL 1 MONTH),
      (SELECT t FROM through)
    ) AS me
  FROM agg
),
cov AS (
  SELECT
    mb.vehicle_id,
    mb.period,
    coalesce(
      sum(greatest(0, epoch(least(l.window_end, mb.me)) - epoch(greatest(l.window_start, mb.ms))))
        FILTER (WHERE l.status IN ('done', 'flagged')),
      0
    ) AS covered_s,
    count(l.status) FILTER (WHERE l.status IN ('incomplete', 'failed')) AS bad,
    max(epoch(mb.me) - epoch(mb.ms)) AS span_s
  FROM mb
  LEFT JOIN led AS l
    ON l.scope = mb.vehicle_id::VARCHAR AND l.window_start < mb.mend AND l.window_end > mb.ms
  GROUP BY mb.vehicle_id, mb.period
)
SELECT
  veh.registration,
  agg.vehicle_id,
  veh.department,
  agg.period,
  round(agg.distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  agg.excluded::INTEGER AS excluded_periods,
  (cov.bad = 0 AND cov.span_s IS NOT NULL AND cov.covered_s >= cov.span_s) AS complete,
  $zone::VARCHAR AS zone
FROM agg
JOIN cov ON cov.vehicle_id = agg.vehicle_id AND cov.period = agg.period
LEFT JOIN veh ON veh.vehicle_id = agg.vehicle_id
WHERE ($vehicle::BIGINT IS NULL OR agg.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY veh.registration, agg.vehicle_id, agg.period;
