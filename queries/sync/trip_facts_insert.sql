-- The trips' day facts per driver of the local days [$3, $4], of the vehicles $5 (NULL: all),
-- computed from the trips by the model layer (queries/models/trip_day_facts.sql) in the zone $2.
INSERT INTO trip_day_facts BY NAME
SELECT $1 AS account, f.*
FROM trip_day_facts_of($1, $2, $3::DATE, $4::DATE) AS f
WHERE $5::BIGINT[] IS NULL OR list_contains($5::BIGINT[], f.vehicle_id);
