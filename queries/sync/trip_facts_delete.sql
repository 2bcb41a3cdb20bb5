-- The stored trips' day facts per driver (trip_day_facts) on the local days [$2, $3], of the
-- vehicles $4 (NULL: all), before they are computed again (src/store/facts.ts). $1 account.
DELETE FROM trip_day_facts
WHERE account = $1 AND day >= $2::DATE AND day <= $3::DATE
  AND ($4::BIGINT[] IS NULL OR list_contains($4::BIGINT[], vehicle_id));
