-- A job that must not run again (the API refused the account's credentials: another login risks
-- locking the account): its retry limit becomes its retry count, so pg-boss's fail() moves it to
-- the dead-letter queue at once. Postgres (pg-boss 10's schema), not DuckDB.
UPDATE pgboss.job SET retry_limit = retry_count WHERE name = $1 AND id = $2 AND state = 'active'
