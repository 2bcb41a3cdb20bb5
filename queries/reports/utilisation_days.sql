-- Utilisation per vehicle × local day of the range (queries/models/activity_days.sql): driving and
-- idle hours, idle share of engine-on time, used (any engine-on time), after-hours hours. A day
-- never synced is blank in every figure, never 0. coverage: complete (synced), partial (pulled but
-- still open for late data: blank until it settles) or not_synced.
SELECT
  d.registration,
  d.vehicle_id,
  d.department,
  strftime(d.day, '%Y-%m-%d') AS day,
  round(d.driving_s / 3600.0, 3)::DOUBLE AS driving_h,
  round(d.idle_s / 3600.0, 3)::DOUBLE AS idle_h,
  round(d.idle_s / nullif(d.idle_s + d.driving_s, 0), 4)::DOUBLE AS idle_share,
  CASE WHEN d.driving_s IS NOT NULL THEN d.driving_s + d.idle_s > 0 END AS used,
  d.working_day,
  round(d.after_hours_s / 3600.0, 3)::DOUBLE AS after_hours_h,
  iso_local(d.first_ignition_on, $zone) AS first_ignition_on,
  iso_local(d.last_ignition_off, $zone) AS last_ignition_off,
  d.synced,
  CASE WHEN d.synced THEN 'complete' WHEN d.open_late THEN 'partial' ELSE 'not_synced' END AS coverage,
  $zone::VARCHAR AS zone
FROM activity_days($account, $zone, $from_day, $to_day) AS d
WHERE vehicle_selected(d.vehicle_id, d.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY d.registration, d.vehicle_id, d.day;
