CREATE TABLE IF NOT EXISTS fuel_consumed (
  account         VARCHAR NOT NULL,
  vehicle_id      BIGINT NOT NULL,
  window_start    TIMESTAMPTZ NOT NULL,
  window_end      TIMESTAMPTZ NOT NULL,
  counter_start_l DOUBLE,
  counter_end_l   DOUBLE,
  fuel_consumed_l DOUBLE,                  -- as the API reported it
  PRIMARY KEY (account, vehicle_id, window_start, window_end)
);
