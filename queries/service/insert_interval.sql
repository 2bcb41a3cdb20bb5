-- One interval of the service plan: for a vehicle, a vehicle class, or the fleet (both NULL).
INSERT INTO service_intervals
VALUES ($account, $vehicle_id::BIGINT, $vehicle_class::VARCHAR, $every_km::DOUBLE, $every_months::INTEGER, $line);
