-- Marks every flagged record as seen by a person (the dashboard banner and the exit code 3 stop).
UPDATE api_change_records
SET acknowledged_at = CAST($1 AS TIMESTAMPTZ)
WHERE affects_sync AND acknowledged_at IS NULL;
