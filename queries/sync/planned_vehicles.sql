-- The vehicles the per-vehicle streams plan for ($1 account): those of the account's latest
-- vehicle listing (one pull stamps them all with the same synced_at). A vehicle the credentials
-- no longer list (a subuser sees part of the fleet; a vehicle left the fleet) keeps its history
-- but is not asked for again: its paths would answer 404 on every run.
SELECT vehicle_id, registration, fuel_canbus_consumed, (fuel_canbus_level OR fuel_analog_level) AS fuel_level,
  electric_battery
FROM vehicles
WHERE account = $1
  AND synced_at = (SELECT max(synced_at) FROM vehicles WHERE account = $1)
ORDER BY vehicle_id
