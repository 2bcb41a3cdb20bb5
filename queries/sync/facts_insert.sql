-- The facts of one ledger stream's local days [$4, $5], of the vehicles $6 (NULL: all), computed
-- from the rows by the model layer (queries/models/daily_facts.sql) in the zone $2.
INSERT INTO daily_facts
SELECT $1, f.*
FROM daily_facts_of($1, $2, $3, $4::DATE, $5::DATE) AS f
WHERE $6::BIGINT[] IS NULL OR list_contains($6::BIGINT[], f.vehicle_id);
