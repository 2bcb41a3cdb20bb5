-- Known vehicles with their department and fuel source (the dashboard's filter bar).
WITH veh AS (SELECT * FROM vehicle_departments($account))
SELECT
  veh.registration,
  veh.vehicle_id,
  veh.department,
  CASE
    WHEN v.fuel_canbus_consumed THEN 'counter'
    WHEN v.fuel_canbus_level OR v.fuel_analog_level THEN 'level_estimate'
  END AS fuel_source,
  -- unknown (NULL) while the carpool vehicle list is refused (queries/models/booking_status.sql)
  if(carpool_vehicles_known($account),
    EXISTS (SELECT 1 FROM carpool_vehicles AS cv WHERE cv.account = $account AND cv.vehicle_id = veh.vehicle_id),
    NULL) AS carpool
FROM veh
LEFT JOIN vehicles AS v ON v.account = $account AND v.vehicle_id = veh.vehicle_id
-- the filter bar lists every vehicle of the department, whatever vehicle is selected
WHERE vehicle_selected(veh.vehicle_id, veh.department, NULL, $department::VARCHAR)
ORDER BY veh.registration, veh.vehicle_id;
