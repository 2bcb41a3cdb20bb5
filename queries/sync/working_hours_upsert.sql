-- Records the account's working hours (src/working-hours.ts) for the utilisation reports;
-- $3 is the ISO weekdays as a comma list ("1,2,3,4,5").
INSERT OR REPLACE INTO account_working_hours (account, spec, weekdays, start_min, end_min, updated_at)
VALUES ($1, $2, list_transform(string_split($3, ','), x -> x::INTEGER), $4, $5, now());
