-- Open incidents, and closed ones whose "recovered" has not reached a channel yet.
SELECT account, incident, opened_at, summary, notified_at, closed_at, close_summary, close_notified_at
FROM alert_incidents
WHERE closed_at IS NULL OR (notified_at IS NOT NULL AND close_notified_at IS NULL)
ORDER BY opened_at
