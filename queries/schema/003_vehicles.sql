CREATE TABLE IF NOT EXISTS vehicles (
  account         VARCHAR NOT NULL,
  vehicle_id      BIGINT NOT NULL,
  registration    VARCHAR NOT NULL,
  vehicle_name    VARCHAR,
  description     VARCHAR,
  manufacturer    VARCHAR,
  model           VARCHAR,
  model_year      INTEGER,
  chassis_number  VARCHAR,
  terminal_serial VARCHAR,
  fuel_canbus_consumed BOOLEAN NOT NULL,
  fuel_canbus_level    BOOLEAN NOT NULL,
  fuel_analog_level    BOOLEAN NOT NULL,
  electric_battery     BOOLEAN NOT NULL,
  electric_charging    BOOLEAN NOT NULL,
  synced_at       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, vehicle_id)
);
