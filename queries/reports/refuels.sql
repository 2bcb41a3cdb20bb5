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
-- The driver of a fill: of the vehicle's trips that ended in the hour before it, the last one's
-- (the latest trip before a fill is either among them or more than an hour before it, so blank
-- either way). Those trips are found by a hash join on the vehicle and the UTC hour of their end
-- (a fill's hour and the one before), not by sorting every trip of the range (an ASOF join sorted
-- 9 M trips for a year of 5,000 vehicles: 23 minutes).
fh AS (
  SELECT
    f.vehicle_id,
    f.fill_time,
    f.fill_time - INTERVAL 1 HOUR AS since,
    unnest([0, -1]) + (epoch(f.fill_time) // 3600)::BIGINT AS h
  FROM f
),
tr AS (
  SELECT t.vehicle_id, t.end_time, t.driver_id, (epoch(t.end_time) // 3600)::BIGINT AS h
  FROM trips AS t
  WHERE t.account = $account
    AND t.end_time >= local_range_start($zone, $from_day) - INTERVAL 1 HOUR
    AND t.end_time < local_range_end($zone, $to_day)
),
-- the last of them (a struct keeps a trip without a driver: its fill's driver is blank, not an
-- earlier trip's); the hour's bounds compared as instants (a difference of two instants per pair
-- costs a calendar computation each)
fd AS (
  SELECT fh.vehicle_id, fh.fill_time, arg_max({'driver_id': tr.driver_id}, tr.end_time).driver_id AS driver_id
  FROM fh
  JOIN tr ON tr.vehicle_id = fh.vehicle_id AND tr.h = fh.h
    AND tr.end_time <= fh.fill_time AND tr.end_time >= fh.since
  GROUP BY fh.vehicle_id, fh.fill_time
)
SELECT
  veh.registration,
  f.vehicle_id,
  veh.department,
  iso_local(f.fill_time, $zone) AS fill_time,
  round(f.amount_l, 3)::DOUBLE AS litres,
  f.location,
  fd.driver_id,
  names.driver_name,
  round(f.odometer_m / 1000.0, 3)::DOUBLE AS odometer_km,
  f.accurate,
  strftime(timezone($zone, f.fill_time), '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM f
LEFT JOIN fd ON fd.vehicle_id = f.vehicle_id AND fd.fill_time = f.fill_time
LEFT JOIN veh ON veh.vehicle_id = f.vehicle_id
LEFT JOIN driver_names($account) AS names ON names.driver_id = fd.driver_id
WHERE vehicle_selected(f.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY f.fill_time, f.vehicle_id;
