-- The stored coverage (day_coverage) of the ledger streams $2 (a list: the streams of one group
-- commit) on the whole local months of the days [$3, $4], of the scopes $5 (NULL: all), before it
-- is computed again (src/store/facts.ts refreshFactsOfStreams). $1 account.
DELETE FROM day_coverage
WHERE account = $1 AND list_contains($2::VARCHAR[], stream)
  AND day >= months_first_day($3::DATE) AND day <= months_last_day($4::DATE)
  AND ($5::VARCHAR[] IS NULL OR list_contains($5::VARCHAR[], scope));
