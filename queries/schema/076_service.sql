-- Service due (issue 28 item 1): the service plan file (FLEETSYNC_SERVICE_PLAN) as last loaded for
-- an account, and the services done. src/service/store.ts replaces the plan's rows of an account
-- (source, intervals, and the services the file lists) in one transaction after the whole file
-- validated; services recorded with `fleetsync service done` (source 'cli') are kept across loads.
-- The rule over them is queries/models/service_due.sql.
CREATE TABLE IF NOT EXISTS service_plan_source (
  account   VARCHAR PRIMARY KEY,
  path      VARCHAR NOT NULL,
  sha256    VARCHAR NOT NULL,
  loaded_at TIMESTAMPTZ NOT NULL,
  warn_km   DOUBLE NOT NULL,
  warn_days INTEGER NOT NULL
);
-- One interval: for one vehicle (vehicle_id), one vehicle class (the class of the prices file,
-- queries/models/prices.sql vehicle_profiles), or the whole fleet (both NULL). every_km and/or
-- every_months; the most specific interval of a vehicle applies, whole.
CREATE TABLE IF NOT EXISTS service_intervals (
  account       VARCHAR NOT NULL,
  vehicle_id    BIGINT,
  vehicle_class VARCHAR,
  every_km      DOUBLE,
  every_months  INTEGER,
  line          INTEGER NOT NULL
);
-- A service done: its local day and the odometer reading written down at it (km).
CREATE TABLE IF NOT EXISTS service_records (
  account     VARCHAR NOT NULL,
  vehicle_id  BIGINT NOT NULL,
  service_day DATE NOT NULL,
  odometer_km DOUBLE NOT NULL,
  source      VARCHAR NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, vehicle_id, service_day, source)
);
