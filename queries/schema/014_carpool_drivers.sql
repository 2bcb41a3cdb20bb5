CREATE TABLE IF NOT EXISTS carpool_drivers (
  account          VARCHAR NOT NULL,
  driver_id        VARCHAR NOT NULL,
  first_name       VARCHAR,
  last_name        VARCHAR,
  department       VARCHAR,
  can_book_carpool BOOLEAN NOT NULL,
  allow_system_auto_booking BOOLEAN NOT NULL,
  allow_specific_vehicle_booking BOOLEAN NOT NULL,
  license_type_ids VARCHAR,                -- JSON array text
  special_licenses VARCHAR,                -- JSON array text
  setup_status     VARCHAR NOT NULL,
  synced_at        TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, driver_id)
);
