-- One row per toll passage entering on a local day of the range, with its charge: the tariff of
-- its geofence and the vehicle's class on that day (queries/models/prices.sql). A passage without
-- a tariff has a blank charge and tariff_status no_tariff — never a charge of 0.
WITH
veh AS (SELECT * FROM vehicle_departments($account))
SELECT
  coalesce(veh.registration, tp.registration) AS registration,
  tp.vehicle_id,
  veh.department,
  tp.geofence_id,
  tp.geofence_name,
  iso_local(tp.enter_time, $zone) AS enter_time,
  iso_local(tp.exit_time, $zone) AS exit_time,
  tp.vehicle_class,
  tp.valid_from::VARCHAR AS tariff_valid_from,
  round(tp.charge, 2)::DOUBLE AS charge,
  tp.tariff_status,
  strftime(tp.local_day, '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM toll_passage_charges($account, $zone, $from_day, $to_day) AS tp
LEFT JOIN veh ON veh.vehicle_id = tp.vehicle_id
WHERE vehicle_selected(tp.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY tp.enter_time, tp.vehicle_id, tp.geofence_id;
