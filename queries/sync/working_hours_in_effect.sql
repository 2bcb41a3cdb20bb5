-- The working hours the after-hours facts of account $1 rest on (working_hours_of: its row, else
-- the default), as one text to compare before and after a sync records them.
SELECT concat_ws(' ', weekdays::VARCHAR, start_min, end_min) AS hours FROM working_hours_of($1);
