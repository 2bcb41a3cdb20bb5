-- The tax logbook (issue 27): one row per trip that starts on a local day of the range, private
-- trips included (the sync asks with incl_private=true). The rules are in queries/models/logbook.sql
-- (logbook_trips): the class from trip_type / is_private (unclassified, never silently business),
-- the odometer status, and counted_km, the kilometres the year's totals count (closing − opening
-- odometer of a trip whose readings are trusted; never trip_distance). What the API did not send
-- for a trip (a private trip comes with a reduced data set) is named in not_sent, never guessed.
SELECT
  lt.trip_id,
  coalesce(veh.registration, lt.registration) AS registration,
  lt.vehicle_id,
  veh.department,
  tax_year_label(tax_year_first_day(lt.local_day, $tax_year_start)) AS tax_year,
  strftime(lt.local_day, '%Y-%m-%d') AS local_date,
  iso_local(lt.start_time, $zone) AS start_time,
  iso_local(lt.end_time, $zone) AS end_time,
  lt.start_location AS start_place,
  lt.end_location AS end_place,
  round(lt.start_odometer_m / 1000.0, 3)::DOUBLE AS opening_odometer_km,
  round(lt.end_odometer_m / 1000.0, 3)::DOUBLE AS closing_odometer_km,
  round(lt.reading_km, 3)::DOUBLE AS km,
  round(lt.counted_km, 3)::DOUBLE AS counted_km,
  lt.trip_class,
  nullif(concat_ws(' — ', nullif(trim(lt.trip_title), ''), nullif(trim(lt.trip_extra_notes), '')), '') AS purpose,
  lt.driver_id,
  names.driver_name,
  lt.odometer_status,
  lt.odometer_reason,
  nullif(concat_ws(', ',
    CASE WHEN lt.start_location IS NULL THEN 'start place' END,
    CASE WHEN lt.end_location IS NULL THEN 'end place' END,
    CASE WHEN lt.trip_title IS NULL AND lt.trip_extra_notes IS NULL THEN 'purpose' END,
    CASE WHEN lt.start_odometer_m IS NULL THEN 'opening odometer' END,
    CASE WHEN lt.end_odometer_m IS NULL THEN 'closing odometer' END,
    CASE WHEN lt.driver_id IS NULL THEN 'driver' END), '') AS not_sent,
  lt.class_note,
  lt.trip_type,
  lt.is_private,
  $zone::VARCHAR AS zone
FROM logbook_trips($account, $zone, $from_day, $to_day) AS lt
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = lt.vehicle_id
LEFT JOIN driver_names($account) AS names ON names.driver_id = lt.driver_id
WHERE vehicle_selected(lt.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY registration, lt.vehicle_id, lt.start_time, lt.trip_id;
