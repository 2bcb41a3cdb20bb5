-- The selected-vehicles filter, once: what a report's vehicle and department parameters select
-- ($vehicle, $department; a registration is resolved to its id before the query runs:
-- src/reports/selection.ts). No parameter selects every vehicle (also one the vehicle snapshots
-- do not know); $vehicle selects that vehicle; $department the vehicles of that department
-- (vehicle_departments: the carpool vehicle's department, else the vehicle description); both
-- select the vehicle if it is in the department.
--   vehicle_selected(vehicle_id, department, sel_vehicle, sel_department)
--       whether a row of that vehicle (department: the vehicle's, NULL when not known) is selected
--   selected_vehicles(acct, sel_vehicle, sel_department)
--       the account's known vehicles selected (vehicle_departments' columns)
CREATE OR REPLACE TEMP MACRO vehicle_selected(vehicle_id, department, sel_vehicle, sel_department) AS
  (sel_vehicle IS NULL OR vehicle_id = sel_vehicle) AND (sel_department IS NULL OR department = sel_department);

CREATE OR REPLACE TEMP MACRO selected_vehicles(acct, sel_vehicle, sel_department) AS TABLE
  SELECT v.*
  FROM vehicle_departments(acct) AS v
  WHERE vehicle_selected(v.vehicle_id, v.department, sel_vehicle, sel_department);
