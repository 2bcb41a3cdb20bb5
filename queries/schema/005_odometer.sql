-- One row per odometer window the ledger holds for a vehicle (done, incomplete or flagged).
CREATE TABLE IF NOT EXISTS odometer_windows (
  account          VARCHAR NOT NULL,
  vehicle_id       BIGINT NOT NULL,
  window_start     TIMESTAMPTZ NOT NULL,
  window_end       TIMESTAMPTZ NOT NULL,
  start_odometer_m DOUBLE,
  end_odometer_m   DOUBLE,
  distance_m       DOUBLE,
  current_odometer_m DOUBLE,
  last_event_at    TIMESTAMPTZ,
  odometer_reset   BOOLEAN NOT NULL,
  terminal_has_changed BOOLEAN NOT NULL,
  PRIMARY KEY (account, vehicle_id, window_start, window_end)
);
