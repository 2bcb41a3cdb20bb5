-- The logbook's rows per vehicle from the daily facts (queries/models/daily_facts.sql: each day's
-- trips, logbook_trips' rows), in the logbook's order (registration, then vehicle), for the same
-- selection of vehicles: an unsorted page of the logbook is read vehicle by vehicle, only the
-- vehicles it falls on (src/reports/run.ts; test/reports/list-pages.int.test.ts). A vehicle that
-- no list names has no registration here (its trips' own may differ trip by trip): then the page
-- is read as it is.
SELECT
  f.vehicle_id,
  veh.registration,
  sum(f.trips)::BIGINT AS rows
FROM vehicle_day_facts($account, $zone, $from_day, $to_day) AS f
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = f.vehicle_id
WHERE f.stream = 'trips'
  AND vehicle_selected(f.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY f.vehicle_id, veh.registration
HAVING sum(f.trips) > 0
ORDER BY veh.registration, f.vehicle_id;
