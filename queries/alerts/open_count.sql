-- Open incidents (the /metrics gauge).
SELECT account, incident FROM alert_incidents WHERE closed_at IS NULL
