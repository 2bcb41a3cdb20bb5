-- A service done: from the plan file (source 'file') or `fleetsync service done` ('cli'); the same
-- vehicle, day and source recorded again replaces the reading.
INSERT OR REPLACE INTO service_records
VALUES ($account, $vehicle_id, $service_day::DATE, $odometer_km, $source, make_timestamptz($recorded_ms::BIGINT * 1000));
