-- The last runs of every account, newest first ($1 limit).
SELECT run_id, account, trigger, outcome, started_at, ended_at,
       date_diff('millisecond', started_at, coalesce(ended_at, started_at)) AS duration_ms,
       requests, retries, http_429, CAST(range_from AS VARCHAR) AS range_from, CAST(range_to AS VARCHAR) AS range_to, errors, notes,
       skipped
FROM runs
ORDER BY started_at DESC
LIMIT $1
