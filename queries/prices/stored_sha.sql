-- The SHA-256 of the prices file an account's price_* tables were loaded from (none: no row).
SELECT sha256 FROM price_source WHERE account = $account;
