-- When each account's "complete through" last moved forward (the stale rule's clock).
SELECT account, complete_through, advanced_at FROM alert_freshness
