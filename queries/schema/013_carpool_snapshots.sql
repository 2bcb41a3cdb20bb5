CREATE TABLE IF NOT EXISTS carpool_vehicles (
  account          VARCHAR NOT NULL,
  vehicle_id       BIGINT NOT NULL,
  registration     VARCHAR NOT NULL,
  category         VARCHAR,
  department       VARCHAR,
  default_location VARCHAR,
  license_class    VARCHAR,
  setup_status     VARCHAR NOT NULL,
  synced_at        TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, vehicle_id)
);
