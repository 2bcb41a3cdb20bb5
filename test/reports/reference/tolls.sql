-- One row per toll passage: visits to geofences with is_toll true whose enter time falls on a
-- local day of the range.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  coalesce(veh.registration, gv.registration) AS registration,
  gv.vehicle_id,
  veh.department,
  gv.geofence_id,
  coalesce(g.name, gv.geofence_name) AS geofence_name,
  iso_local(gv.enter_time, $zone) AS enter_time,
  iso_local(gv.exit_time, $zone) AS exit_time,
  round(coalesce(gv.duration_s, epoch(gv.exit_time) - epoch(gv.enter_time)), 0)::DOUBLE AS duration_s,
  strftime(timezone($zone, gv.enter_time), '%Y-%m-%d') AS local_date,
  strftime(timezone('UTC', gv.enter_time), '%Y-%m-%d') AS utc_date,
  $zone::VARCHAR AS zone
FROM geofence_visits AS gv
CROSS JOIN rng
LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id
LEFT JOIN veh ON veh.vehicle_id = gv.vehicle_id
WHERE gv.account = $account
  AND coalesce(g.is_toll, gv.is_toll, false)
  AND gv.enter_time >= rng.t0 AND gv.enter_time < rng.t1
  AND ($vehicle::BIGINT IS NULL OR gv.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY gv.enter_time, gv.vehicle_id, gv.geofence_id;
