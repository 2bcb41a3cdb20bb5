-- The facts of the ledger streams $3 (a list) on the local days [$4, $5], of the vehicles $6
-- (NULL: all), computed from the rows by the model layer (queries/models/daily_facts.sql) in the
-- zone $2 (by name: the model adds some columns by name, not in the table's order).
INSERT INTO daily_facts BY NAME
SELECT $1 AS account, f.*
FROM daily_facts_of($1, $2, NULL, $4::DATE, $5::DATE) AS f
WHERE list_contains($3::VARCHAR[], f.stream)
  AND ($6::BIGINT[] IS NULL OR list_contains($6::BIGINT[], f.vehicle_id));
