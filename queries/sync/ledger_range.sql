-- Ledger rows of every stream overlapping a range, in one read (the planner asks each stream's):
-- $1 account, $2 from, $3 to (exclusive). A window stored `done` whose reads held fewer records
-- than the API announced (where both are known: 040_ledger_announced.sql) reads as `incomplete`,
-- so the planner pulls it again.
SELECT
  stream,
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
  AND window_end > $2::TIMESTAMPTZ
  AND window_start < $3::TIMESTAMPTZ
ORDER BY stream, scope, window_start
