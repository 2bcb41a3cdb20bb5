-- Toll passages per gantry (toll geofence) over the range: the breakdown behind the tolls
-- report. Same selection as tolls.sql (toll_passages, enter time on a local day of the range,
-- vehicle/department filter), so passages add up to the tolls report's row count.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  gv.geofence_id,
  any_value(gv.geofence_name) AS geofence_name,
  count(*)::INTEGER AS passages,
  count(DISTINCT gv.vehicle_id)::INTEGER AS vehicles,
  round(sum(coalesce(gv.duration_s, epoch(gv.exit_time) - epoch(gv.enter_time))), 0)::DOUBLE AS duration_s,
  iso_local(min(gv.enter_time), $zone) AS first_passage,
  iso_local(max(gv.enter_time), $zone) AS last_passage
FROM toll_passages($account) AS gv
CROSS JOIN rng
LEFT JOIN veh ON veh.vehicle_id = gv.vehicle_id
WHERE gv.enter_time >= rng.t0 AND gv.enter_time < rng.t1
  AND vehicle_selected(gv.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY gv.geofence_id
ORDER BY passages DESC, geofence_name, gv.geofence_id;
