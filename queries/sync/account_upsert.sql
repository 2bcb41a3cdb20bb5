-- The account's API, kept for the dashboard and reports: $1 account, $2 base URL, $3 zone. The zone
-- is recorded with the account's first sync and never changed here: only a re-zone changes it
-- (queries/sync/account_rezone.sql), after every window has been pulled again in the new zone.
INSERT INTO accounts (account, base_url, timezone, updated_at) VALUES ($1, $2, $3, now())
ON CONFLICT (account) DO UPDATE SET base_url = excluded.base_url, updated_at = excluded.updated_at
