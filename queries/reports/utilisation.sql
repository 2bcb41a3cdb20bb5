-- Utilisation per vehicle × local month (the local months the range touches, up to today):
-- driving and idle hours, idle share of engine-on time, days used out of days available (working
-- days synced; a day is used when the engine ran), and engine-on hours outside the working hours
-- (queries/models/activity_days.sql). Figures cover the synced days only: days_synced of
-- days_in_month says how many, complete says all; a month with no synced day is blank, never 0.
WITH
d AS (
  SELECT *
  -- the first day of the range's first month to the last of its last (up to today); as
  -- constants, so the model's bounds prune its scan of the trips
  FROM activity_days(
    $account,
    $zone,
    strftime(months_first_day($from_day), '%Y-%m-%d'),
    strftime(least(months_last_day($to_day), timezone($zone, $now)::DATE), '%Y-%m-%d')
  )
),
agg AS (
  SELECT
    vehicle_id,
    any_value(registration) AS registration,
    any_value(department) AS department,
    local_month(day_start, $zone) AS period,
    sum(driving_s) AS driving_s,
    sum(idle_s) AS idle_s,
    count(driving_s) AS days_known,
    count(*) FILTER (WHERE working_day AND driving_s + idle_s > 0) AS days_used,
    count(*) FILTER (WHERE working_day AND driving_s IS NOT NULL) AS days_available,
    sum(after_hours_s) AS after_s,
    count(after_hours_s) AS after_known,
    count(*) FILTER (WHERE synced) AS days_synced,
    max(day) AS lday
  FROM d
  GROUP BY vehicle_id, period
)
SELECT
  registration,
  vehicle_id,
  department,
  period,
  round(driving_s / 3600.0, 3)::DOUBLE AS driving_h,
  round(idle_s / 3600.0, 3)::DOUBLE AS idle_h,
  round(idle_s / nullif(idle_s + driving_s, 0), 4)::DOUBLE AS idle_share,
  CASE WHEN days_known > 0 THEN days_used END::INTEGER AS days_used,
  CASE WHEN days_known > 0 THEN days_available END::INTEGER AS days_available,
  round(days_used / nullif(days_available, 0), 4)::DOUBLE AS utilisation,
  round(after_s / 3600.0, 3)::DOUBLE AS after_hours_h,
  days_synced::INTEGER AS days_synced,
  day(last_day(lday))::INTEGER AS days_in_month,
  (days_synced = day(last_day(lday))) AS complete,
  $zone::VARCHAR AS zone
FROM agg
WHERE vehicle_selected(vehicle_id, department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY registration, vehicle_id, period;
