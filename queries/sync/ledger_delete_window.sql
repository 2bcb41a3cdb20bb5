-- Every ledger row of one stream and scope inside a window: $1 account, $2 stream, $3 scope, $4 from, $5 to (exclusive).
DELETE FROM ledger
WHERE account = $1 AND stream = $2 AND scope = $3 AND window_start >= $4::TIMESTAMPTZ AND window_end <= $5::TIMESTAMPTZ
