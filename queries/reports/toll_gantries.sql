-- Toll passages per gantry (toll geofence) over the range: the breakdown behind the tolls
-- report. Same selection as tolls.sql (toll_passages, enter time on a local day of the range,
-- vehicle/department filter), so passages add up to the tolls report's row count.
WITH
veh AS (SELECT * FROM vehicle_departments($account))
SELECT
  gv.geofence_id,
  any_value(gv.geofence_name) AS geofence_name,
  count(*)::INTEGER AS passages,
  count(DISTINCT gv.vehicle_id)::INTEGER AS vehicles,
  round(sum(coalesce(gv.duration_s, epoch(gv.exit_time) - epoch(gv.enter_time))), 0)::DOUBLE AS duration_s,
  iso_local(min(gv.enter_time), $zone) AS first_passage,
  iso_local(max(gv.enter_time), $zone) AS last_passage
FROM toll_passages($account) AS gv
LEFT JOIN veh ON veh.vehicle_id = gv.vehicle_id
-- the range's bounds as constants: the scan reads only the row groups of the range
WHERE gv.enter_time >= local_range_start($zone, $from_day) AND gv.enter_time < local_range_end($zone, $to_day)
  AND vehicle_selected(gv.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY gv.geofence_id
ORDER BY passages DESC, geofence_name, gv.geofence_id;
