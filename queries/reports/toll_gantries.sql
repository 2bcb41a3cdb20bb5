-- Toll passages per gantry (toll geofence) over the range: the breakdown behind the tolls
-- report. Same selection as tolls.sql (is_toll geofences, enter time on a local day of the
-- range, vehicle/department filter), so passages add up to the tolls report's row count.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  gv.geofence_id,
  coalesce(any_value(g.name), any_value(gv.geofence_name)) AS geofence_name,
  count(*)::INTEGER AS passages,
  count(DISTINCT gv.vehicle_id)::INTEGER AS vehicles,
  round(sum(coalesce(gv.duration_s, epoch(gv.exit_time) - epoch(gv.enter_time))), 0)::DOUBLE AS duration_s,
  iso_local(min(gv.enter_time), $zone) AS first_passage,
  iso_local(max(gv.enter_time), $zone) AS last_passage
FROM geofence_visits AS gv
CROSS JOIN rng
LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id
LEFT JOIN veh ON veh.vehicle_id = gv.vehicle_id
WHERE gv.account = $account
  AND coalesce(g.is_toll, gv.is_toll, false)
  AND gv.enter_time >= rng.t0 AND gv.enter_time < rng.t1
  AND ($vehicle::BIGINT IS NULL OR gv.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
GROUP BY gv.geofence_id
ORDER BY passages DESC, geofence_name, gv.geofence_id;
