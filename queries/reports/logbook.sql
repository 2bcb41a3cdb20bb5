-- The tax logbook (issue 27): one row per trip that starts on a local day of the range, private
-- trips included (the sync asks with incl_private=true). The rules are in queries/models/logbook.sql
-- (logbook_trips): the class from trip_type / is_private (unclassified, never silently business),
-- the odometer status, and counted_km, the kilometres the year's totals count (closing − opening
-- odometer of a trip whose readings are trusted; never trip_distance). What the API did not send
-- for a trip (a private trip comes with a reduced data set) is named in not_sent, never guessed.
-- Ordered on the keys before anything is formatted (as tolls.sql): a dashboard page of it is a
-- top-N over the keys, so only the page's rows are formatted.
SELECT
  s.trip_id,
  s.registration,
  s.vehicle_id,
  s.department,
  tax_year_label(tax_year_first_day(s.local_day, $tax_year_start)) AS tax_year,
  strftime(s.local_day, '%Y-%m-%d') AS local_date,
  iso_local(s.start_time, $zone) AS start_time,
  iso_local(s.end_time, $zone) AS end_time,
  s.start_location AS start_place,
  s.end_location AS end_place,
  round(s.start_odometer_m / 1000.0, 3)::DOUBLE AS opening_odometer_km,
  round(s.end_odometer_m / 1000.0, 3)::DOUBLE AS closing_odometer_km,
  round(s.reading_km, 3)::DOUBLE AS km,
  round(s.counted_km, 3)::DOUBLE AS counted_km,
  s.trip_class,
  nullif(concat_ws(' — ', nullif(trim(s.trip_title), ''), nullif(trim(s.trip_extra_notes), '')), '') AS purpose,
  s.driver_id,
  s.driver_name,
  s.odometer_status,
  s.odometer_reason,
  nullif(concat_ws(', ',
    CASE WHEN s.start_location IS NULL THEN 'start place' END,
    CASE WHEN s.end_location IS NULL THEN 'end place' END,
    CASE WHEN s.trip_title IS NULL AND s.trip_extra_notes IS NULL THEN 'purpose' END,
    CASE WHEN s.start_odometer_m IS NULL THEN 'opening odometer' END,
    CASE WHEN s.end_odometer_m IS NULL THEN 'closing odometer' END,
    CASE WHEN s.driver_id IS NULL THEN 'driver' END), '') AS not_sent,
  s.class_note,
  s.trip_type,
  s.is_private,
  $zone::VARCHAR AS zone
FROM (
  SELECT
    lt.* EXCLUDE (registration),
    coalesce(veh.registration, lt.registration) AS registration,
    veh.department,
    names.driver_name
  FROM logbook_trips($account, $zone, $from_day, $to_day) AS lt
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = lt.vehicle_id
  LEFT JOIN driver_names($account) AS names ON names.driver_id = lt.driver_id
  WHERE vehicle_selected(lt.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
  ORDER BY registration, lt.vehicle_id, lt.start_time, lt.trip_id
) AS s;
