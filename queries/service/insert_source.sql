-- The service plan file an account's plan came from (one row per account).
INSERT INTO service_plan_source
VALUES ($account, $path, $sha256, make_timestamptz($loaded_ms::BIGINT * 1000), $warn_km, $warn_days);
