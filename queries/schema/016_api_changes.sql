-- The Fleet API's release notes as fleetsync last saw them (src/changes/). Releases are per API,
-- not per account: every table carries the feed URL it came from (`source`) instead.
CREATE TABLE IF NOT EXISTS api_releases (
  source        VARCHAR NOT NULL,          -- the records.json URL
  version       VARCHAR NOT NULL,          -- four numbers, e.g. 1.26.0824.1
  release_date  DATE NOT NULL,
  records       INTEGER NOT NULL,
  first_seen_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (source, version)
);

-- One row per bullet (Versioning §3). `affects_sync` is true for a breaking or deprecation
-- record that names an endpoint the sync uses; `sync_endpoints` lists those endpoints.
CREATE TABLE IF NOT EXISTS api_change_records (
  source         VARCHAR NOT NULL,
  version        VARCHAR NOT NULL,
  seq            INTEGER NOT NULL,         -- position of the bullet within the release
  release_date   DATE NOT NULL,
  kind           VARCHAR NOT NULL,         -- feature | improvement | fix | deprecation | breaking | other
  section        VARCHAR,
  area           VARCHAR,
  contract       JSON,
  endpoints      JSON NOT NULL,            -- ["GET /trips", ...]
  breaking       BOOLEAN NOT NULL,
  text           VARCHAR NOT NULL,
  affects_sync   BOOLEAN NOT NULL,
  sync_endpoints JSON NOT NULL,
  first_seen_at  TIMESTAMPTZ NOT NULL,
  acknowledged_at TIMESTAMPTZ,
  PRIMARY KEY (source, version, seq)
);

-- Validators of the last 200 answer, for conditional requests, and the outcome of the last check.
CREATE TABLE IF NOT EXISTS api_feed_state (
  source        VARCHAR PRIMARY KEY,
  etag          VARCHAR,
  last_modified VARCHAR,
  checked_at    TIMESTAMPTZ NOT NULL,
  changed_at    TIMESTAMPTZ,
  last_status   VARCHAR NOT NULL,          -- unchanged | updated | error
  last_error    VARCHAR
);
