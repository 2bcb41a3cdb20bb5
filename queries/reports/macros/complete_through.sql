-- complete_through(acct): the instant up to which every stream and scope of the account is
-- synced: the earliest "covered up to" (latest end of a done/flagged window) over all streams
-- and scopes, pulled back to the start of any incomplete or failed window that no done or
-- flagged window has since covered. NULL before the first sync. Bookings are left out: their
-- windows stay open until every booking in them (some scheduled weeks ahead) is final, which says
-- nothing about how complete the telemetry is.
CREATE OR REPLACE TEMP MACRO complete_through(acct) AS (
  SELECT least(
    (
      SELECT min(e) FROM (
        SELECT max(window_end) AS e FROM ledger
        WHERE account = acct AND status IN ('done', 'flagged') AND stream <> 'bookings'
        GROUP BY stream, scope
      )
    ),
    (
      SELECT min(l.window_start) FROM ledger AS l
      WHERE l.account = acct AND l.status IN ('incomplete', 'failed') AND l.stream <> 'bookings'
        AND NOT EXISTS (
          SELECT 1 FROM ledger AS d
          WHERE d.account = l.account AND d.stream = l.stream AND d.scope = l.scope
            AND d.status IN ('done', 'flagged')
            AND d.window_start <= l.window_start AND d.window_end >= l.window_end
        )
    )
  )
);
