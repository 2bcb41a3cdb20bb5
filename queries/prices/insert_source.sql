-- The prices file an account's price_* tables came from (one row per account).
INSERT INTO price_source
VALUES (
  $account,
  $path,
  $sha256,
  make_timestamptz($loaded_ms::BIGINT * 1000),
  $currency::VARCHAR,
  $fuel_type,
  $vehicle_class,
  $grid::DOUBLE
);
