-- The SHA-256 of the service plan file an account's plan was loaded from (none: no row).
SELECT sha256 FROM service_plan_source WHERE account = $account;
