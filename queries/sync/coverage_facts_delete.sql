-- The stored coverage (day_coverage) of one ledger stream ($2) on the whole local months of the
-- days [$3, $4], of the scopes $5 (NULL: all), before it is computed again (src/store/facts.ts):
-- whole months, as a window just pulled may drop an open row reaching past it within its month.
DELETE FROM day_coverage
WHERE account = $1 AND stream = $2
  AND day >= months_first_day($3::DATE) AND day <= months_last_day($4::DATE)
  AND ($5::VARCHAR[] IS NULL OR list_contains($5::VARCHAR[], scope));
