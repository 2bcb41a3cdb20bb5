-- Ledger rows of one stream overlapping a range: $1 account, $2 stream, $3 from, $4 to (exclusive).
-- A window stored `done` whose reads held fewer records than the API announced (where both are
-- known: 040_ledger_announced.sql) reads as `incomplete`, so the planner pulls it again.
SELECT
  scope,
  window_start,
  window_end,
  CASE
    WHEN status = 'done' AND announced IS NOT NULL AND kept IS NOT NULL
      AND kept + coalesce(duplicates, 0) < announced THEN 'incomplete'
    ELSE status
  END AS status,
  fetched_at
FROM ledger
WHERE account = $1
  AND stream = $2
  AND window_end > $3::TIMESTAMPTZ
  AND window_start < $4::TIMESTAMPTZ
ORDER BY scope, window_start
