-- One row per site visit (queries/models/site_visits.sql: a visit to a geofence that is not a toll
-- geofence) entered on a local day of the range, of the selected vehicles, of one site when
-- $site (a geofence id) is given. dwell_min is blank for a visit still open (status open), never 0.
SELECT
  coalesce(veh.registration, s.registration) AS registration,
  s.vehicle_id,
  veh.department,
  s.geofence_id,
  s.geofence_name AS site,
  iso_local(s.enter_time, $zone) AS enter_time,
  iso_local(s.exit_time, $zone) AS exit_time,
  round(s.dwell_s / 60.0, 1)::DOUBLE AS dwell_min,
  CASE WHEN s.open THEN 'open' ELSE 'closed' END AS status,
  s.outside_hours,
  strftime(s.local_day, '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM site_visits($account, $zone) AS s
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = s.vehicle_id
WHERE s.enter_time >= local_range_start($zone, $from_day)
  AND s.enter_time < local_range_end($zone, $to_day)
  AND ($site::VARCHAR IS NULL OR s.geofence_id = $site::VARCHAR)
  AND vehicle_selected(s.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY s.enter_time, s.vehicle_id, s.geofence_id;
