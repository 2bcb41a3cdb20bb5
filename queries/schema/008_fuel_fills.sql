-- A fill listed twice by the API is stored once (keyed by vehicle and fill time).
CREATE TABLE IF NOT EXISTS fuel_fills (
  account     VARCHAR NOT NULL,
  vehicle_id  BIGINT NOT NULL,
  fill_time   TIMESTAMPTZ NOT NULL,
  amount_l    DOUBLE NOT NULL,
  odometer_m  DOUBLE,
  location    VARCHAR,
  accurate    BOOLEAN,
  PRIMARY KEY (account, vehicle_id, fill_time)
);
