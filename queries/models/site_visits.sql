-- Time on site, once: the visits that are not toll passages (models/toll_passages.sql decides)
-- are site visits — depots, customer sites, yards.
--   site_visits(acct, zone)  one row per site visit:
--     vehicle_id, registration, geofence_id, geofence_name (the geofence's name as last synced,
--                 else the visit's), enter_time, exit_time (NULL while the visit is open),
--     open        no exit yet: the vehicle has not left (its dwell is not known, never 0),
--     dwell_s     seconds on site: exit − enter between the two instants (right across midnight
--                 and across a clock change), else the API's duration_total; NULL when open,
--     local_day   the local day (in `zone`) of the enter time: the day a visit counts on,
--     outside_hours  entered outside the account's working hours (models/working_hours.sql): on
--                 a day that is not a working day, or before the start or at/after the end
CREATE OR REPLACE TEMP MACRO site_visits(acct, zone) AS TABLE
  SELECT
    v.account,
    v.vehicle_id,
    v.registration,
    v.geofence_id,
    v.geofence_name,
    v.enter_time,
    v.exit_time,
    v.exit_time IS NULL AND v.duration_s IS NULL AS open,
    coalesce(epoch(v.exit_time) - epoch(v.enter_time), v.duration_s)::DOUBLE AS dwell_s,
    timezone(zone, v.enter_time)::DATE AS local_day,
    NOT (
      list_contains(wh.weekdays, isodow(timezone(zone, v.enter_time)))
      AND hour(timezone(zone, v.enter_time)) * 60 + minute(timezone(zone, v.enter_time)) >= wh.start_min
      AND hour(timezone(zone, v.enter_time)) * 60 + minute(timezone(zone, v.enter_time)) < wh.end_min
    ) AS outside_hours
  FROM geofence_visits_classified(acct) AS v
  CROSS JOIN working_hours_of(acct) AS wh
  WHERE NOT v.toll_passage;
