-- Each vehicle's data horizon ($1 account, $2 odometer lag in ms): how far its data has reached
-- the API, from the odometer windows the ledger keeps. A window whose last event lies within the
-- lag of its end (or of the moment it was fetched, for one reaching into the present) shows the
-- data reached that far (a parked tracker's heartbeat is sparse); otherwise the last event is as
-- far as it reached. The registration names it in the reasons. `asked`: how far the API has
-- answered for the vehicle's odometer (the end of its latest window that did not fail): a horizon
-- short of a window only shows the vehicle is late when the API was asked past that window's end;
-- short of `asked` it is only unknown (the odometer request failed), and such a window waits
-- without ever being accepted incomplete.
SELECT
  l.scope,
  coalesce(v.registration, l.scope) AS registration,
  max(
    CASE
      WHEN l.last_event_at IS NULL THEN NULL
      WHEN epoch_ms(least(l.window_end, l.fetched_at)) - epoch_ms(l.last_event_at) <= $2
        THEN least(l.window_end, l.fetched_at)
      ELSE l.last_event_at
    END
  ) AS horizon,
  max(l.window_end) FILTER (WHERE l.status <> 'failed') AS asked
FROM ledger AS l
LEFT JOIN vehicles AS v ON v.account = l.account AND CAST(v.vehicle_id AS VARCHAR) = l.scope
WHERE l.account = $1 AND l.stream = 'odometer'
GROUP BY l.scope, v.registration
HAVING max(l.last_event_at) IS NOT NULL
