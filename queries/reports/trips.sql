-- One row per trip that starts on a local day of the range, private trips included: the sync asks
-- for them (incl_private=true) and the API sends them with a reduced data set, so a private trip's
-- places may be blank (unknown, not "nowhere"). trip_type, the event counts and the rest are as
-- the API sent them (blank when it did not). trip distance is per trip only: period totals come
-- from mileage.sql (odometer windows), never from summing these.
-- Exports run this at COPY speed (issues 16, 29): the range bounds are constants (a table filter
-- the scan prunes by); one table is read, crossed with the one row of its lookups' lists, and
-- every other value is a lookup by position in those lists (macros/trip_lookups.sql: vehicle,
-- department, driver name, the zone's offset and its text per quarter hour), never a hash join,
-- so the rows leave in the scan's order; when the account's trips are
-- stored in start order (lookups/trips_stored_order.sql) the export drops the marked ORDER BY
-- and streams them, else they are ordered on their keys before anything is formatted (the
-- sort carries timestamps and ids, not text; a dashboard page is a top-N that formats only its
-- rows).
SELECT
  s.trip_id,
  s.registration,
  s.vehicle_id,
  s.department,
  trip_iso_local(s.start_time, s.start_off, s.start_off_text) AS start_time,
  trip_iso_local(s.end_time, s.end_off, s.end_off_text) AS end_time,
  round(s.trip_distance_m / 1000.0, 3)::DOUBLE AS distance_km,
  round(s.start_odometer_m / 1000.0, 3)::DOUBLE AS start_odometer_km,
  round(s.end_odometer_m / 1000.0, 3)::DOUBLE AS end_odometer_km,
  s.driver_id,
  s.driver_name,
  s.start_location,
  s.end_location,
  s.trip_type,
  s.is_private,
  s.trip_title,
  s.trip_extra_notes,
  s.harsh_braking_events,
  s.harsh_acceleration_events,
  s.harsh_cornering_events,
  s.road_speeding_events,
  s.road_speeding_duration_seconds,
  s.thresholds_speeding_events,
  s.thresholds_speeding_duration_seconds,
  s.max_speed,
  s.start_geofence_name,
  s.end_geofence_name,
  -- the start's local text's first ten characters (the same expression as start_time's, which
  -- DuckDB's common-subexpression pass may share; no second strftime of its own)
  left(trip_iso_local(s.start_time, s.start_off, s.start_off_text), 10) AS local_date,
  strftime(make_timestamp(epoch_us(s.start_time)), '%Y-%m-%d') AS utc_date,
  $zone::VARCHAR AS zone
FROM (
  SELECT
    t.trip_id,
    coalesce(t.lk.registration[t.v], t.registration) AS registration,
    t.vehicle_id,
    t.lk.department[t.v] AS department,
    t.start_time,
    t.end_time,
    t.trip_distance_m,
    t.start_odometer_m,
    t.end_odometer_m,
    t.driver_id,
    t.lk.driver_name[t.d] AS driver_name,
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
    trip_offset(t.lk, t.start_time, t.start_qi, $zone) AS start_off,
    trip_offset(t.lk, t.end_time, t.end_qi, $zone) AS end_off,
    t.lk.off_text[t.start_qi] AS start_off_text,
    t.lk.off_text[t.end_qi] AS end_off_text
  FROM (
    SELECT *, trip_vehicle(vehicle_id) AS v, trip_key('d' || driver_id) AS d,
      trip_qi(start_time) AS start_qi, trip_qi(end_time) AS end_qi
    FROM trips, (SELECT getvariable('trip_lookups') AS lk) AS lookups
    WHERE account = $account
      AND start_time >= local_range_start($zone, $from_day)
      AND start_time < local_range_end($zone, $to_day)
      AND trip_lookups_ready($account, $zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day))
  ) AS t
  WHERE vehicle_selected(t.vehicle_id, t.lk.department[t.v], $vehicle::BIGINT, $department::VARCHAR)
    -- a driver's trips, or with '-' the trips without a driver (the drill-down of driver_scores)
    AND ($driver::VARCHAR IS NULL OR t.driver_id IS NOT DISTINCT FROM nullif($driver::VARCHAR, '-'))
  -- stored order: the export leaves this sort out when trips_stored_order says the rows are stored so
  ORDER BY t.start_time, t.trip_id
) AS s;
