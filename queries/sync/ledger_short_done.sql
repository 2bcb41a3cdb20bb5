-- Windows stored `done` whose reads held fewer records than the API announced (where both are
-- known, 040_ledger_announced.sql), per stream, overlapping a range: the planner pulls them again
-- (ledger_range.sql reads them as incomplete) and says so. $1 account, $2 from, $3 to (exclusive).
SELECT stream, count(*)::INTEGER AS n
FROM ledger
WHERE account = $1
  AND status = 'done'
  AND announced IS NOT NULL AND kept IS NOT NULL
  AND kept + coalesce(duplicates, 0) < announced
  AND window_end > $2::TIMESTAMPTZ
  AND window_start < $3::TIMESTAMPTZ
GROUP BY stream
ORDER BY stream
