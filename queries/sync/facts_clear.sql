-- The stored facts of an account ($1), of one ledger stream ($2; NULL: all), before a rebuild
-- computes them again.
DELETE FROM daily_facts WHERE account = $1 AND ($2::VARCHAR IS NULL OR stream = $2::VARCHAR);
