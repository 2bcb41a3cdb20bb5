-- Ledger rows of one stream overlapping a range: $1 account, $2 stream, $3 from, $4 to (exclusive).
SELECT scope, window_start, window_end, status, fetched_at
FROM ledger
WHERE account = $1
  AND stream = $2
  AND window_end > $3::TIMESTAMPTZ
  AND window_start < $4::TIMESTAMPTZ
ORDER BY scope, window_start
