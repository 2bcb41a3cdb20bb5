-- The account's vehicles, to resolve the service plan's registrations (src/service/store.ts).
SELECT vehicle_id, registration FROM vehicles WHERE account = $account ORDER BY vehicle_id;
