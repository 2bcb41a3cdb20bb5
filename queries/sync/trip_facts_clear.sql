-- The stored trips' day facts per driver of an account ($1), before a rebuild computes them again.
DELETE FROM trip_day_facts WHERE account = $1;
