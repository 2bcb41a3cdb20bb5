-- The run row completed at the end: $1 run id, $2 ended at, $3 outcome, $4 requests, $5 retries, $6 429s by bucket,
-- $7 rows by stream, $8 windows by stream, $9 first errors, $10 requests by bucket, $11 retries by bucket.
-- (Notes: run_notes.sql, written beside the sync.)
UPDATE runs SET ended_at = $2, outcome = $3, requests = $4, retries = $5, http_429 = $6, rows_by_stream = $7,
  windows_by_stream = $8, errors = $9, requests_by_bucket = $10, retries_by_bucket = $11
WHERE run_id = $1
