-- The account's API and zone, kept for the dashboard and reports: $1 account, $2 base URL, $3 zone.
INSERT OR REPLACE INTO accounts (account, base_url, timezone, updated_at) VALUES ($1, $2, $3, now())
