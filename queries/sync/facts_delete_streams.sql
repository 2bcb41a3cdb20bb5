-- The stored facts of the ledger streams $2 (a list: the fact streams of one group commit) on the
-- local days [$3, $4], of the vehicles $5 (NULL: all), before they are computed again
-- (src/store/facts.ts refreshFactsOfStreams). $1 account.
DELETE FROM daily_facts
WHERE account = $1 AND list_contains($2::VARCHAR[], stream) AND day >= $3::DATE AND day <= $4::DATE
  AND ($5::BIGINT[] IS NULL OR list_contains($5::BIGINT[], vehicle_id));
