-- The tank level series of level-sensor vehicles (GET /fuel/level/history/{registration}):
-- one reading per vehicle and instant. The suspected fuel drops (queries/models/fuel_drops.sql)
-- are read from it; it is never used for fuel used.
CREATE TABLE IF NOT EXISTS fuel_level_history (
  account       VARCHAR NOT NULL,
  vehicle_id    BIGINT NOT NULL,
  reading_time  TIMESTAMPTZ NOT NULL,
  level_l       DOUBLE NOT NULL,
  accurate      BOOLEAN,
  PRIMARY KEY (account, vehicle_id, reading_time)
);
