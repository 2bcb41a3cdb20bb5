-- A run whose process died (marked interrupted when the next run started) gets the requests it sent and the
-- time of its last one from the state file beside the database: $1 run id, $2 requests, $3 last request at.
UPDATE runs SET requests = $2, ended_at = $3 WHERE run_id = $1 AND outcome = 'interrupted'
