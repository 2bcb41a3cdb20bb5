-- One row per suspected fuel drop (the rule: queries/models/fuel_drops.sql) that starts on a local
-- day of the range: a parked fall of the tank level larger than FLEETSYNC_FUEL_DROP_L within
-- FUEL_DROP_MAX_MINUTES. Listed for investigation; never subtracted from fuel used.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day)),
d AS (
  SELECT x.*
  FROM fuel_drops_found($account, $fuel_drop_l, $fuel_drop_min) AS x, rng
  WHERE x.start_time >= rng.t0 AND x.start_time < rng.t1
)
SELECT
  veh.registration,
  d.vehicle_id,
  veh.department,
  iso_local(d.start_time, $zone) AS start_time,
  iso_local(d.end_time, $zone) AS end_time,
  round(d.litres, 2)::DOUBLE AS litres,
  round(d.level_before_l, 2)::DOUBLE AS level_before_l,
  round(d.level_after_l, 2)::DOUBLE AS level_after_l,
  round((epoch(d.end_time) - epoch(d.start_time)) / 60.0, 1)::DOUBLE AS duration_min,
  d.parked,
  strftime(timezone($zone, d.start_time), '%Y-%m-%d') AS local_date,
  $zone::VARCHAR AS zone
FROM d
LEFT JOIN veh ON veh.vehicle_id = d.vehicle_id
WHERE vehicle_selected(d.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY d.start_time, d.vehicle_id;
