-- The coverage of the ledger streams $3 (a list) on the whole local months of the days [$4, $5],
-- of the scopes $6 (NULL: all), computed from the ledger by the coverage model
-- (queries/models/coverage.sql, ledger_day_coverage) in the zone $2. $1 account.
INSERT INTO day_coverage
SELECT $1, c.*
FROM ledger_day_coverage($1, $2, NULL, $6::VARCHAR[], months_first_day($4::DATE), months_last_day($5::DATE)) AS c
WHERE list_contains($3::VARCHAR[], c.stream);
