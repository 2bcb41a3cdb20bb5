-- The streams the run skipped (an endpoint not permitted or not available): $1 run id, $2 JSON list.
UPDATE runs SET skipped = $2 WHERE run_id = $1
