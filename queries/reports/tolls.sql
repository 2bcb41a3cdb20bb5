-- One row per toll passage (queries/models/toll_passages.sql) whose enter time falls on a local
-- day of the range.
-- Ordered on the keys before anything is formatted, with the range bounds as constants (see
-- trips.sql): a dashboard page of it is a top-N over the keys (only the page's rows are
-- formatted), an export sorts no text, and local times come from the zone's offset per quarter
-- hour (zone_offsets) rather than an ICU conversion of each instant.
SELECT
  s.registration,
  s.vehicle_id,
  s.department,
  s.geofence_id,
  s.geofence_name,
  iso_local_at(s.enter_time, s.enter_off) AS enter_time,
  iso_local_at(s.exit_time, s.exit_off) AS exit_time,
  round(coalesce(s.duration_s, epoch(s.exit_time) - epoch(s.enter_time)), 0)::DOUBLE AS duration_s,
  strftime(local_at(s.enter_time, s.enter_off), '%Y-%m-%d') AS local_date,
  strftime(make_timestamp(epoch_us(s.enter_time)), '%Y-%m-%d') AS utc_date,
  $zone::VARCHAR AS zone
FROM (
  SELECT
    coalesce(veh.registration, gv.registration) AS registration,
    gv.vehicle_id,
    veh.department,
    gv.geofence_id,
    gv.geofence_name,
    gv.enter_time,
    gv.exit_time,
    gv.duration_s,
    eo.off AS enter_off,
    -- a visit may end beyond the table's last quarter hour: its own conversion then
    coalesce(xo.off, offset_in(gv.exit_time, $zone)) AS exit_off
  FROM toll_passages($account) AS gv
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = gv.vehicle_id
  LEFT JOIN zone_offsets($zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day)) AS eo
    ON eo.q = epoch_us(gv.enter_time) // 900000000
  LEFT JOIN zone_offsets($zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day) + INTERVAL 2 DAY) AS xo
    ON xo.q = epoch_us(gv.exit_time) // 900000000
  WHERE gv.enter_time >= local_range_start($zone, $from_day)
    AND gv.enter_time < local_range_end($zone, $to_day)
    AND vehicle_selected(gv.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
  ORDER BY gv.enter_time, gv.vehicle_id, gv.geofence_id
) AS s;
