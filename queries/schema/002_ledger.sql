-- The window ledger: the single source of truth for coverage. One row per unit of work.
CREATE TABLE IF NOT EXISTS ledger (
  account       VARCHAR NOT NULL,
  stream        VARCHAR NOT NULL,          -- trips | odometer | fuel_consumed | fuel_level | fuel_fills | visits | bookings
  scope         VARCHAR NOT NULL,          -- '*' (fleet) or a vehicle_id
  window_start  TIMESTAMPTZ NOT NULL,
  window_end    TIMESTAMPTZ NOT NULL,      -- exclusive
  status        VARCHAR NOT NULL,          -- done | incomplete | flagged | failed
  rows          INTEGER NOT NULL DEFAULT 0,
  requests      INTEGER NOT NULL DEFAULT 0,
  fetched_at    TIMESTAMPTZ NOT NULL,
  run_id        VARCHAR NOT NULL,
  reason        VARCHAR,                   -- why flagged / incomplete / failed
  sample        VARCHAR,                   -- a short sample of a payload that did not parse
  last_event_at TIMESTAMPTZ,               -- odometer: last event the API had for the window
  PRIMARY KEY (account, stream, scope, window_start, window_end)
);
