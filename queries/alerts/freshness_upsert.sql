-- "Complete through" moved forward (or is seen for the first time): $1 account, $2 complete through, $3 now.
INSERT OR REPLACE INTO alert_freshness (account, complete_through, advanced_at) VALUES ($1, $2, $3)
