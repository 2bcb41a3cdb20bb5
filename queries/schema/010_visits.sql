-- A visit has no id: its key is (vehicle, geofence, enter time).
CREATE TABLE IF NOT EXISTS geofence_visits (
  account       VARCHAR NOT NULL,
  vehicle_id    BIGINT NOT NULL,
  geofence_id   VARCHAR NOT NULL,
  enter_time    TIMESTAMPTZ NOT NULL,
  exit_time     TIMESTAMPTZ,
  registration  VARCHAR NOT NULL,
  geofence_name VARCHAR,
  is_toll       BOOLEAN,
  duration_s    DOUBLE,
  PRIMARY KEY (account, vehicle_id, geofence_id, enter_time)
);
