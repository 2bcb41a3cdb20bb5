-- The vehicles the per-vehicle streams plan for ($1 account).
SELECT vehicle_id, registration, fuel_canbus_consumed, (fuel_canbus_level OR fuel_analog_level) AS fuel_level,
  electric_battery
FROM vehicles
WHERE account = $1
ORDER BY vehicle_id
