-- Whether account $1's recorded working hours are already $2 spec, $3 weekdays (comma list),
-- $4 start and $5 end minute (working_hours_upsert.sql's values): then a run records nothing.
SELECT EXISTS (
  SELECT 1 FROM account_working_hours
  WHERE account = $1 AND spec = $2
    AND weekdays = list_transform(string_split($3, ','), x -> x::INTEGER)
    AND start_min = $4 AND end_min = $5
) AS same
