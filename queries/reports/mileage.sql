-- Mileage per vehicle × local month (the account's zone): the sum of the counted odometer windows
-- (queries/models/odometer_windows.sql: never trip_distance, windows with a reset or a tracker
-- change left out), read from the daily facts (queries/models/daily_facts.sql); the flagged windows are counted in excluded_periods (listed by
-- excluded_windows.sql).
-- complete: the month, up to the last synced instant, is covered by done/flagged ledger windows,
-- no window of the month is incomplete or failed (an open month whose window is still
-- incomplete is not complete, even when nothing after the last synced instant is expected yet),
-- and its coverage is complete: every ended day of it settled, also those after the last synced
-- instant (a month synced from its 1st to the 5th, and nothing since, is not complete). A
-- from/to range selects the local months it touches (queries/models/local_calendar.sql).
-- Every vehicle × month of the range is a row (issue 12): coverage / covered_share say how many
-- of the month's ended vehicle-days were synced (queries/models/coverage.sql); a month never
-- synced has a blank distance_km (unknown), a measured zero stays 0.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
grid AS (SELECT veh.vehicle_id, m.period FROM veh, range_months($from_day, $to_day) AS m),
vdc AS (SELECT * FROM vehicle_month_coverage($account, $zone, $from_day, $to_day, $now, 'odometer')),
-- the counted distance and the windows left out, from the daily facts (a window on the day it starts)
agg AS (
  SELECT
    vehicle_id,
    month_of_day(day) AS period,
    sum(distance_m) AS distance_m,
    sum(left_out) AS excluded
  FROM vehicle_day_facts($account, $zone, months_first_day($from_day), months_last_day($to_day))
  WHERE stream = 'odometer'
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
  k.vehicle_id,
  veh.department,
  k.period,
  round(agg.distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  coalesce(agg.excluded, 0)::INTEGER AS excluded_periods,
  coalesce(cov.bad = 0 AND cov.span_s IS NOT NULL AND cov.covered_s >= cov.span_s, false)
    AND coverage_label(coalesce(vdc.synced_days, 0), coalesce(vdc.range_days, 0)) = 'complete' AS complete,
  $zone::VARCHAR AS zone,
  coverage_label(coalesce(vdc.synced_days, 0), coalesce(vdc.range_days, 0)) AS coverage,
  round(vdc.synced_days / nullif(vdc.range_days, 0), 4)::DOUBLE AS covered_share
FROM (SELECT vehicle_id, period FROM grid UNION SELECT vehicle_id, period FROM agg) AS k
LEFT JOIN agg ON agg.vehicle_id = k.vehicle_id AND agg.period = k.period
LEFT JOIN cov ON cov.vehicle_id = k.vehicle_id AND cov.period = k.period
LEFT JOIN vdc ON vdc.vehicle_id = k.vehicle_id AND vdc.period = k.period
LEFT JOIN veh ON veh.vehicle_id = k.vehicle_id
WHERE vehicle_selected(k.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, k.vehicle_id, k.period;
