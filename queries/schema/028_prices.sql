-- The prices file (FLEETSYNC_PRICES), as last loaded for an account: src/prices/store.ts replaces
-- all five tables of the account in one transaction after the whole file validated, so a report
-- never sees half of two files. Reports (costs, toll_charges) join them; no price = blank cost.
CREATE TABLE IF NOT EXISTS price_source (
  account               VARCHAR PRIMARY KEY,
  path                  VARCHAR NOT NULL,
  sha256                VARCHAR NOT NULL,
  loaded_at             TIMESTAMPTZ NOT NULL,
  currency              VARCHAR,
  default_fuel_type     VARCHAR NOT NULL,
  default_vehicle_class VARCHAR NOT NULL,
  grid_kg_per_kwh       DOUBLE
);
-- Fuel price per litre by fuel type and local month (YYYY-MM).
CREATE TABLE IF NOT EXISTS price_fuel (
  account     VARCHAR NOT NULL,
  fuel_type   VARCHAR NOT NULL,
  period      VARCHAR NOT NULL,
  price_per_l DOUBLE NOT NULL,
  PRIMARY KEY (account, fuel_type, period)
);
-- Toll tariff per toll geofence and vehicle class from a local day (valid_to inclusive, NULL =
-- until the next tariff of the same geofence and class).
CREATE TABLE IF NOT EXISTS price_tolls (
  account       VARCHAR NOT NULL,
  geofence_id   VARCHAR NOT NULL,
  vehicle_class VARCHAR NOT NULL,
  valid_from    DATE NOT NULL,
  valid_to      DATE,
  charge        DOUBLE NOT NULL,
  PRIMARY KEY (account, geofence_id, vehicle_class, valid_from)
);
-- A vehicle's fuel type and class where it differs from the account's defaults.
CREATE TABLE IF NOT EXISTS price_vehicles (
  account       VARCHAR NOT NULL,
  vehicle_id    BIGINT NOT NULL,
  fuel_type     VARCHAR,
  vehicle_class VARCHAR,
  PRIMARY KEY (account, vehicle_id)
);
-- kg CO2 per litre by fuel type (diesel 2.68, petrol 2.31 unless the file says otherwise).
CREATE TABLE IF NOT EXISTS price_emission_factors (
  account   VARCHAR NOT NULL,
  fuel_type VARCHAR NOT NULL,
  kg_per_l  DOUBLE NOT NULL,
  PRIMARY KEY (account, fuel_type)
);
