-- Ledger rows of one stream, for the scopes given, that are not settled (incomplete, failed) and
-- reach partly into a window just pulled: a month window's open tail once its days are pulled one
-- by one (fuel fills fleet-wide per day). Left, it would say "incomplete" over days that are done;
-- the rest of its span is a gap, planned again as any. Rows inside the window are replaced by the
-- window's own. $1 account, $2 stream, $3 scopes (comma-separated), $4 from, $5 to (exclusive).
DELETE FROM ledger
WHERE account = $1 AND stream = $2
  AND list_contains(string_split($3, ','), scope)
  AND status IN ('incomplete', 'failed')
  AND window_start < $5::TIMESTAMPTZ AND window_end > $4::TIMESTAMPTZ
  AND NOT (window_start >= $4::TIMESTAMPTZ AND window_end <= $5::TIMESTAMPTZ)
