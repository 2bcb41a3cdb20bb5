-- One row per trip that starts on a local day of the range. trip distance is per trip only:
-- period totals come from mileage.sql (odometer windows), never from summing these.
-- Exports run this at COPY speed (issue 16): the range bounds are constants (a table filter the
-- scan prunes by), the rows are ordered on their keys before anything is formatted (the sort
-- carries timestamps and ids, not text; a dashboard page is a top-N that formats only its
-- rows), and each instant is converted to local time once (the same expression, computed once).
SELECT
  s.trip_id,
  s.registration,
  s.vehicle_id,
  s.department,
  iso_local(s.start_time, $zone) AS start_time,
  iso_local(s.end_time, $zone) AS end_time,
  round(s.trip_distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  round(s.start_odometer_m / 1000.0, 3)::DOUBLE AS start_odometer_km,
  round(s.end_odometer_m / 1000.0, 3)::DOUBLE AS end_odometer_km,
  s.driver_id,
  s.driver_name,
  s.start_location,
  s.end_location,
  strftime(timezone($zone, s.start_time), '%Y-%m-%d') AS local_date,
  strftime(timezone('UTC', s.start_time), '%Y-%m-%d') AS utc_date,
  $zone::VARCHAR AS zone
FROM (
  SELECT
    t.trip_id,
    coalesce(veh.registration, t.registration) AS registration,
    t.vehicle_id,
    veh.department,
    t.start_time,
    t.end_time,
    t.trip_distance_m,
    t.start_odometer_m,
    t.end_odometer_m,
    t.driver_id,
    names.driver_name,
    t.start_location,
    t.end_location
  FROM trips AS t
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = t.vehicle_id
  LEFT JOIN driver_names($account) AS names ON names.driver_id = t.driver_id
  WHERE t.account = $account
    AND t.start_time >= local_range_start($zone, $from_day)
    AND t.start_time < local_range_end($zone, $to_day)
    AND ($vehicle::BIGINT IS NULL OR t.vehicle_id = $vehicle::BIGINT)
    AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)
  ORDER BY t.start_time, t.trip_id
) AS s;
