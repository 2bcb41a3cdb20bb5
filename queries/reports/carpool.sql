-- One row per carpool booking whose scheduled window overlaps the range. Lateness is the model's
-- booking_late (queries/models/booking_status.sql): NULL for a status this version does not know.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  b.booking_id,
  coalesce(veh.registration, b.registration) AS registration,
  b.vehicle_id,
  veh.department,
  b.driver_id,
  names.driver_name,
  b.booking_status,
  booking_late(b.booking_status, b.booking_status_known) AS is_late,
  b.is_approved,
  iso_local(b.start_time, $zone) AS start_time,
  iso_local(b.end_time, $zone) AS end_time,
  iso_local(b.picked_up_at, $zone) AS picked_up_at,
  iso_local(b.returned_at, $zone) AS returned_at,
  iso_local(b.created_at, $zone) AS created_at,
  b.department AS booking_department,
  $zone::VARCHAR AS zone
FROM carpool_bookings AS b
CROSS JOIN rng
LEFT JOIN veh ON veh.vehicle_id = b.vehicle_id
LEFT JOIN driver_names($account) AS names ON names.driver_id = b.driver_id
WHERE b.account = $account
  AND b.start_time < rng.t1 AND b.end_time > rng.t0
  AND vehicle_selected(b.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY b.start_time, b.booking_id;
