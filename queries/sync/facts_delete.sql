-- The stored facts of one ledger stream ($2) on the local days [$3, $4], of the vehicles $5 (NULL:
-- all), before they are computed again (src/store/facts.ts). $1 account.
DELETE FROM daily_facts
WHERE account = $1 AND stream = $2 AND day >= $3::DATE AND day <= $4::DATE
  AND ($5::BIGINT[] IS NULL OR list_contains($5::BIGINT[], vehicle_id));
