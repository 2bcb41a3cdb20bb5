-- A trip returned by two windows is stored once (keyed by trip_id).
CREATE TABLE IF NOT EXISTS trips (
  account          VARCHAR NOT NULL,
  trip_id          VARCHAR NOT NULL,
  vehicle_id       BIGINT NOT NULL,
  registration     VARCHAR NOT NULL,
  start_time       TIMESTAMPTZ NOT NULL,
  end_time         TIMESTAMPTZ NOT NULL,
  trip_distance_m  DOUBLE NOT NULL,
  start_odometer_m DOUBLE,
  end_odometer_m   DOUBLE,
  driver_id        VARCHAR,
  start_location   VARCHAR,
  end_location     VARCHAR,
  PRIMARY KEY (account, trip_id)
);
