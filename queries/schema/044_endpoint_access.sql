-- What each account's credentials may read, per endpoint (src/api/access.ts, src/sync/access.ts):
-- `ok` (answered), `not_permitted` (403 while other endpoints answer) or `not_available` (404 on a
-- collection endpoint). `since` is when the current state began (first seen refused, or available
-- again), `last_probed` the last run that asked; `streams` / `ledger_streams` the streams that need
-- the endpoint (comma-separated), skipped while it is refused.
CREATE TABLE IF NOT EXISTS endpoint_access (
  account        VARCHAR NOT NULL,
  endpoint       VARCHAR NOT NULL,
  state          VARCHAR NOT NULL,
  since          TIMESTAMPTZ NOT NULL,
  last_probed    TIMESTAMPTZ NOT NULL,
  last_status    INTEGER,
  message        VARCHAR,
  streams        VARCHAR,
  ledger_streams VARCHAR,
  PRIMARY KEY (account, endpoint)
);
