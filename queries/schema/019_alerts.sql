-- Alert incidents (src/alerts/): one row per incident, so a restart neither re-alerts an open
-- incident nor forgets to say "recovered". `incident` is `run` (the last run failed or was partial),
-- `stale` (no new complete day for FLEETSYNC_STALE_HOURS) or `api_change:<version>` (a release
-- note changes an endpoint the sync uses; account '*'). At most one open row per (account, incident).
CREATE TABLE IF NOT EXISTS alert_incidents (
  account        VARCHAR NOT NULL,
  incident       VARCHAR NOT NULL,
  opened_at      TIMESTAMPTZ NOT NULL,
  summary        VARCHAR NOT NULL,          -- the alert's text (no secret: built from names and counts)
  notified_at    TIMESTAMPTZ,               -- the alert reached a channel (NULL: retried on the next check)
  closed_at      TIMESTAMPTZ,
  close_summary  VARCHAR,
  close_notified_at TIMESTAMPTZ,
  PRIMARY KEY (account, incident, opened_at)
);

-- When each account's "complete through" last moved forward: the stale rule's clock.
CREATE TABLE IF NOT EXISTS alert_freshness (
  account          VARCHAR PRIMARY KEY,
  complete_through TIMESTAMPTZ NOT NULL,
  advanced_at      TIMESTAMPTZ NOT NULL
);
