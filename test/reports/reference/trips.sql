-- One row per trip that starts on a local day of the range. trip distance is per trip only:
-- period totals come from mileage.sql (odometer windows), never from summing these.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  t.trip_id,
  coalesce(veh.registration, t.registration) AS registration,
  t.vehicle_id,
  veh.department,
  iso_local(t.start_time, $zone) AS start_time,
  iso_local(t.end_time, $zone) AS end_time,
  round(t.trip_distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  round(t.start_odometer_m / 1000.0, 3)::DOUBLE AS start_odometer_km,
  round(t.end_odometer_m / 1000.0, 3)::DOUBLE AS end_odometer_km,
  t.driver_id,
  names.driver_name,
  t.start_location,
  t.end_location,
  t.trip_type,
  t.is_private,
  t.trip_title,
  t.trip_extra_notes,
  t.harsh_braking_events,
  t.harsh_acceleration_events,
  t.harsh_cornering_events,
  t.road_speeding_events,
  t.road_speeding_duration_seconds,
  t.thresholds_speeding_events,
  t.thresholds_speeding_duration_seconds,
  t.max_speed,
  t.start_geofence_name,
  t.end_geofence_name,
  strftime(timezone($zone, t.start_time), '%Y-%m-%d') AS local_date,
  strftime(timezone('UTC', t.start_time), '%Y-%m-%d') AS utc_date,
  $zone::VARCHAR AS zone
FROM trips AS t
CROSS JOIN rng
LEFT JOIN veh ON veh.vehicle_id = t.vehicle_id
LEFT JOIN driver_names($account) AS names ON names.driver_id = t.driver_id
WHERE t.account = $account
  AND t.start_time >= rng.t0 AND t.start_time < rng.t1
  AND ($vehicle::BIGINT IS NULL OR t.vehicle_id = $vehicle::BIGINT)
  AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
ORDER BY t.start_time, t.trip_id;
