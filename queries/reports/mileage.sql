-- Mileage per vehicle × local month (the account's zone): the sum of the counted odometer windows
-- (queries/models/odometer_windows.sql: never trip_distance, windows with a reset or a tracker
-- change left out); the flagged windows are counted in excluded_periods (listed by
-- excluded_windows.sql).
-- complete: the month, up to the last synced instant, is covered by done/flagged ledger windows
-- and no window of the month is incomplete or failed (an open month whose window is still
-- incomplete is not complete, even when nothing after the last synced instant is expected yet). A
-- from/to range selects the local months it touches (queries/models/local_calendar.sql).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
agg AS (
  SELECT
    vehicle_id,
    period,
    sum(counted_m) AS distance_m,
    count(*) FILTER (WHERE NOT counted) AS excluded
  FROM odometer_windows_classified($account, $zone, $from_day, $to_day)
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
    local_month_start(agg.period, $zone) AS ms,
    local_month_end(agg.period, $zone) AS mend,
    least(local_month_end(agg.period, $zone), (SELECT t FROM through)) AS me
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
