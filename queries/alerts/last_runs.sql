-- The last finished run of every account (a run still going is not an outcome yet).
SELECT account, run_id, trigger, outcome, started_at, ended_at,
       date_diff('millisecond', started_at, ended_at) AS duration_ms,
       CAST(windows_by_stream AS VARCHAR) AS windows_by_stream, CAST(errors AS VARCHAR) AS errors
FROM runs
WHERE outcome IN ('ok', 'partial', 'failed', 'interrupted') AND ended_at IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY account ORDER BY started_at DESC) = 1
ORDER BY account
