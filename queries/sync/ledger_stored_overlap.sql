-- Ledger rows of one stream and scope overlapping a window (a failure is recorded only where none is): $1 account, $2 stream, $3 scope, $4 from, $5 to (exclusive).
SELECT count(*)::INTEGER AS n
FROM ledger
WHERE account = $1 AND stream = $2 AND scope = $3 AND window_start < $5::TIMESTAMPTZ AND window_end > $4::TIMESTAMPTZ
