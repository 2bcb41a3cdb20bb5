-- Whether the run's row holds its outcome ($1 run id, $2 outcome): a row whose insert a full disk refused makes the
-- finishing UPDATE change nothing without an error.
SELECT count(*) AS n FROM runs WHERE run_id = $1 AND outcome = $2
