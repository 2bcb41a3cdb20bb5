-- The latest service of a vehicle before a day with a higher odometer reading than given (none:
-- the reading is consistent): `service done` refuses a reading below an earlier one.
SELECT service_day::VARCHAR AS service_day, odometer_km
FROM service_records
WHERE account = $account AND vehicle_id = $vehicle_id AND service_day < $service_day::DATE
  AND odometer_km > $odometer_km
ORDER BY service_day DESC
LIMIT 1;
