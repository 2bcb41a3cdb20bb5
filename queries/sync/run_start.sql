-- The run row, written when a run starts: $1 run id, $2 account, $3 started at, $4 outcome, $5 trigger, $6 first day, $7 last day, $8 streams.
INSERT INTO runs (run_id, account, started_at, outcome, trigger, range_from, range_to, streams)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
