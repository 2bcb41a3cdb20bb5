-- The run's notes (the release-notes check beside the sync): $1 run id, $2 notes.
UPDATE runs SET notes = $2 WHERE run_id = $1
