-- complete_through(acct): the instant up to which every stream and scope of the account is
-- synced: the earliest "covered up to" (latest end of a done/flagged window) over all streams
-- and scopes, pulled back to the start of any incomplete or failed window that no done or
-- flagged window has since covered. NULL before the first sync. Bookings are left out: their
-- windows stay open until every booking in them (some scheduled weeks ahead) is final, which says
-- nothing about how complete the telemetry is.
-- A snapshot (vehicles, geofences, carpool) that failed the last time a run pulled it holds it
-- back to the start of the last run that pulled it whole: a vehicle added since is not known, so
-- nothing after that is complete (NULL when it never succeeded).
-- complete_through_day(acct, zone): the last local day, inclusive, that is complete — the day
-- before the local date of that instant (an instant at 20 Nov 00:00 means 19 Nov is complete).
CREATE OR REPLACE TEMP MACRO snapshot_hold(acct) AS (
  WITH pulls AS (
    SELECT s.name, r.started_at,
      coalesce(TRY_CAST(json_extract(r.windows_by_stream, '$.' || s.name || '.failed') AS INTEGER), 0) AS failed,
      coalesce(TRY_CAST(json_extract(r.windows_by_stream, '$.' || s.name || '.done') AS INTEGER), 0) AS done
    FROM runs AS r, (VALUES ('vehicles'), ('geofences'), ('carpool')) AS s(name)
    WHERE r.account = acct AND r.outcome <> 'running'
      AND json_extract(r.windows_by_stream, '$.' || s.name) IS NOT NULL
  ),
  per AS (
    SELECT name, arg_max(failed, started_at) AS failed_last,
      max(started_at) FILTER (WHERE done > 0 AND failed = 0) AS whole_at
    FROM pulls GROUP BY name
  )
  SELECT min(coalesce(whole_at, '-infinity'::TIMESTAMPTZ)) FROM per WHERE failed_last > 0
);
-- refused_ledger_streams(acct): the ledger streams whose endpoint the account may not read or does
-- not have (endpoint_access, src/sync/access.ts): skipped by every run while it lasts, so they
-- hold nothing back — "complete through" is about what the credentials can read.
CREATE OR REPLACE TEMP MACRO refused_ledger_streams(acct) AS TABLE
  SELECT DISTINCT unnest(string_split(ledger_streams, ',')) AS stream
  FROM endpoint_access
  WHERE account = acct AND state <> 'ok' AND coalesce(ledger_streams, '') <> '';
CREATE OR REPLACE TEMP MACRO complete_through(acct) AS (
  SELECT CASE WHEN h = '-infinity'::TIMESTAMPTZ THEN NULL ELSE least(c, h) END
  FROM (SELECT snapshot_hold(acct) AS h, least(
    (
      SELECT min(e) FROM (
        SELECT max(window_end) AS e FROM ledger
        WHERE account = acct AND status IN ('done', 'flagged') AND stream <> 'bookings'
          AND stream NOT IN (SELECT stream FROM refused_ledger_streams(acct))
        GROUP BY stream, scope
      )
    ),
    (
      SELECT min(l.window_start) FROM ledger AS l
      WHERE l.account = acct AND l.status IN ('incomplete', 'failed') AND l.stream <> 'bookings'
        AND l.stream NOT IN (SELECT stream FROM refused_ledger_streams(acct))
        AND NOT EXISTS (
          SELECT 1 FROM ledger AS d
          WHERE d.account = l.account AND d.stream = l.stream AND d.scope = l.scope
            AND d.status IN ('done', 'flagged')
            AND d.window_start <= l.window_start AND d.window_end >= l.window_end
        )
    )
  ) AS c)
);
CREATE OR REPLACE TEMP MACRO complete_through_day(acct, zone) AS (
  CAST(timezone(zone, complete_through(acct)) AS DATE) - 1
);
