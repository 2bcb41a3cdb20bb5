-- The services the last plan file listed (those recorded with `service done` stay).
DELETE FROM service_records WHERE account = $account AND source = 'file';
