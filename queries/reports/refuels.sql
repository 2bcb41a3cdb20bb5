-- One row per refuel (fuel fill) on a local day of the range. A fill the API lists twice is stored
-- once (fuel_fills is keyed by vehicle and fill time). driver_id: the driver of the vehicle's trip
-- that ended at or before the fill, at most an hour before it (blank otherwise: unknown), and
-- driver_name the name people know them by (driver_names).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day)),
f AS (
  SELECT ff.*
  FROM fuel_fills AS ff, rng
  WHERE ff.account = $account AND ff.fill_time >= rng.t0 AND ff.fill_time < rng.t1
),
-- Only trips that can name a fill's driver: ending in the range or at most an hour before it (the
-- latest trip before a fill is either among them or more than an hour before it, so blank either
-- way); the ASOF join then sorts those rather than every trip of the account.
tr AS (
  SELECT vehicle_id, end_time, driver_id
  FROM trips
  WHERE account = $account
    AND end_time >= local_range_start($zone, $from_day) - INTERVAL 1 HOUR
    AND end_time < local_range_end($zone, $to_day)
)
SELECT
  veh.registration,
  f.vehicle_id,
  veh.department,
  iso_local(f.fill_time, $zone) AS fill_time,
  round(f.amount_l, 3)::DOUBLE AS litres,
  f.location,
  CASE WHEN f.fill_time - tr.end_time <= INTERVAL 1 HOUR THEN tr.driver_id END AS driver_id,
  CASE WHEN f.fill_time - tr.end_time <= INTERVAL 1 HOUR THEN names.driver_name END AS driver_name,
  round(f.odometer_m / 1000.0, 3)::DOUBLE AS odometer_km,
  f.accurate,
  strftime(timezone($zone, f.fill_time), '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM f
ASOF LEFT JOIN tr ON tr.vehicle_id = f.vehicle_id AND f.fill_time >= tr.end_time
LEFT JOIN veh ON veh.vehicle_id = f.vehicle_id
LEFT JOIN driver_names($account) AS names ON names.driver_id = tr.driver_id
WHERE vehicle_selected(f.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY f.fill_time, f.vehicle_id;
