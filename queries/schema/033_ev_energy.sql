-- POST /vehicles/ev-consumption: an electric vehicle's battery energy per local day window (the
-- endpoint takes at most 24 h). A day synced again replaces its row, never doubles it.
CREATE TABLE IF NOT EXISTS ev_energy (
  account             VARCHAR NOT NULL,
  vehicle_id          BIGINT NOT NULL,
  window_start        TIMESTAMPTZ NOT NULL,
  window_end          TIMESTAMPTZ NOT NULL,
  energy_consumed_kwh DOUBLE,                  -- drawn from the battery, as the API reported it
  energy_charged_kwh  DOUBLE,                  -- put in by charging
  distance_m          DOUBLE,
  start_soc_pct       DOUBLE,
  end_soc_pct         DOUBLE,
  PRIMARY KEY (account, vehicle_id, window_start)
);
