CREATE TABLE IF NOT EXISTS fuel_level (
  account         VARCHAR NOT NULL,
  vehicle_id      BIGINT NOT NULL,
  window_start    TIMESTAMPTZ NOT NULL,
  window_end      TIMESTAMPTZ NOT NULL,
  start_l         DOUBLE,
  start_at        TIMESTAMPTZ,
  start_accurate  BOOLEAN,
  end_l           DOUBLE,
  end_at          TIMESTAMPTZ,
  end_accurate    BOOLEAN,
  estimated_used_l DOUBLE,
  calibrated      BOOLEAN,
  PRIMARY KEY (account, vehicle_id, window_start, window_end)
);
