-- The coverage calendar's rows per vehicle (queries/reports/coverage.sql: every selected vehicle ×
-- every ended local day of the range, a row each), in its order (registration, then vehicle), for
-- the same selection of vehicles: an unsorted page of the calendar is read vehicle by vehicle, only
-- the vehicles it falls on, instead of every vehicle-day of the range computed and formatted
-- (src/reports/registry.ts vehiclePages; test/reports/aggregate-page.test.ts).
SELECT
  veh.vehicle_id,
  veh.registration,
  (SELECT count(*) FROM ended_local_days($zone, $from_day, $to_day, $now::TIMESTAMPTZ))::BIGINT AS rows
FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR) AS veh
ORDER BY veh.registration, veh.vehicle_id;
