-- One row per sync run. Counters are JSON objects keyed by bucket or stream.
CREATE TABLE IF NOT EXISTS runs (
  run_id        VARCHAR PRIMARY KEY,
  account       VARCHAR NOT NULL,
  started_at    TIMESTAMPTZ NOT NULL,
  ended_at      TIMESTAMPTZ,
  outcome       VARCHAR NOT NULL,          -- running | ok | partial | failed
  trigger       VARCHAR NOT NULL,          -- cli | schedule | api | demo
  range_from    DATE,
  range_to      DATE,
  streams       VARCHAR,
  requests      INTEGER NOT NULL DEFAULT 0,
  retries       INTEGER NOT NULL DEFAULT 0,
  http_429      JSON,                      -- {"default": 0, "fuel_consumed_bulk": 2, ...}
  rows_by_stream    JSON,
  windows_by_stream JSON,                  -- {"trips": {"done": 3, "failed": 0, ...}}
  errors        JSON,                      -- [{"stream","scope","reason"}] (first few)
  notes         VARCHAR
);
