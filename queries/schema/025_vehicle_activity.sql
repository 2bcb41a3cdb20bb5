-- GET /vehicles/activity: one row per vehicle and local day (the day's start instant keys it, so a
-- window's delete and the ledger work on instants like every other stream). A day synced twice is
-- replaced, never doubled. driver_ids: JSON array text.
CREATE TABLE IF NOT EXISTS vehicle_activity (
  account           VARCHAR NOT NULL,
  vehicle_id        BIGINT NOT NULL,
  day_start         TIMESTAMPTZ NOT NULL,
  local_day         DATE NOT NULL,
  registration      VARCHAR NOT NULL,
  first_ignition_on TIMESTAMPTZ,
  last_ignition_off TIMESTAMPTZ,
  idle_s            DOUBLE NOT NULL,
  driving_s         DOUBLE NOT NULL,
  driver_ids        VARCHAR NOT NULL,
  PRIMARY KEY (account, vehicle_id, day_start)
);
