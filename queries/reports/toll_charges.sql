-- One row per toll passage entering on a local day of the range, with its charge: the tariff of
-- its geofence and the vehicle's class on that day (queries/models/prices.sql). A passage without
-- a tariff has a blank charge and tariff_status no_tariff — never a charge of 0.
-- Ordered on the keys before anything is formatted (as tolls.sql): a dashboard page of it is a
-- top-N over the keys, so only the page's rows are formatted.
SELECT
  s.registration,
  s.vehicle_id,
  s.department,
  s.geofence_id,
  s.geofence_name,
  iso_local(s.enter_time, $zone) AS enter_time,
  iso_local(s.exit_time, $zone) AS exit_time,
  s.vehicle_class,
  s.valid_from::VARCHAR AS tariff_valid_from,
  round(s.charge, 2)::DOUBLE AS charge,
  s.tariff_status,
  strftime(s.local_day, '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM (
  SELECT
    coalesce(veh.registration, tp.registration) AS registration,
    tp.vehicle_id,
    veh.department,
    tp.geofence_id,
    tp.geofence_name,
    tp.enter_time,
    tp.exit_time,
    tp.vehicle_class,
    tp.valid_from,
    tp.charge,
    tp.tariff_status,
    tp.local_day
  FROM toll_passage_charges($account, $zone, $from_day, $to_day) AS tp
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = tp.vehicle_id
  WHERE vehicle_selected(tp.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
  ORDER BY tp.enter_time, tp.vehicle_id, tp.geofence_id
) AS s;
