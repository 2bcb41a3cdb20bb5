-- The vehicles a vehicle / department filter selects (queries/models/selection.sql):
-- src/reports/selection.ts asks whether --vehicle is in --department before anything is written.
-- Not a report.
SELECT vehicle_id FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR) ORDER BY vehicle_id;
